// Package trecqa reads TrecQA (QASent; Wang, Smith & Mitamura 2007, with
// the TRAIN/DEV/TEST of Yao et al. 2013) in two distributions: the folder
// format of Rao, He & Lin (2016) (line-aligned a.toks, b.toks, sim.txt,
// id.txt), which holds TRAIN and the raw and clean DEV and TEST sets, and the
// JSONL of mcrisc/lexdecomp, the only complete TRAIN-ALL.
//
// Every TrecQA file stores each question's positive candidates first. That
// order is not a retrieval order, and a ranker or tie-break that looks at it
// reads the labels. Load therefore shuffles each question's candidates with a
// fixed seed and renumbers their positions unless told otherwise.
//
// TRAIN-ALL comes from Wang's original text, where numbers were replaced by
// "<num>"; the DEV and TEST sets have the real numbers. NormalizeNumbers maps
// numbers to "<num>" so that both sides agree when they are mixed.
package trecqa
