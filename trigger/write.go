package trigger

import (
	"encoding/json"
	"io"
)

// Write writes the report as format says: "json", one JSON object (the
// report's MarshalJSON), else text (WriteText).
func (rep Report) Write(w io.Writer, format string) error {
	if format == "json" {
		return json.NewEncoder(w).Encode(rep)
	}
	return rep.WriteText(w)
}
