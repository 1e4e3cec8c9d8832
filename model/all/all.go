// Package all links every architecture into a binary: importing it runs
// their registrations (model.Register), so that model.Lookup finds them by
// name and model.Read reads their files. Adding an architecture to as2 is
// its own package plus one line here.
package all

import (
	_ "github.com/as2/as2/model/compagg"      // ca, compclip
	_ "github.com/as2/as2/model/cosinet"      // cosinet
	_ "github.com/as2/as2/model/crossencoder" // crossencoder
	_ "github.com/as2/as2/model/dual"         // dual
	_ "github.com/as2/as2/model/has"          // has
	_ "github.com/as2/as2/model/sentcos"      // sentence-cosine
)
