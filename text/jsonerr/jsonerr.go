// Package jsonerr says where in a JSON input a decoding error is:
// encoding/json keeps the byte offset (and, for type errors, the field) in
// the error's fields, not in its message.
package jsonerr

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Locate returns err with its byte offset (and field) in the message, for
// syntax and type errors; other errors are returned as they are.
func Locate(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("at byte %d: %w", se.Offset, err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("field %q at byte %d: %w", te.Field, te.Offset, err)
	}
	return err
}
