package evaluation

import (
	"io"

	"github.com/as2/as2/metric"
)

// Write fills s's numbers from res (Summarize) and writes it as format
// says: "json", one JSON line (WriteJSON), else the table (WriteTable).
func (s *Summary) Write(w io.Writer, format string, res metric.Result, perQuestion bool) error {
	s.Summarize(res, perQuestion)
	if format == "json" {
		return s.WriteJSON(w)
	}
	return s.WriteTable(w)
}
