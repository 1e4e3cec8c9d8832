package train

// Batches exports batches to the tests.
var Batches = batches
