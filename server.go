package as2

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/as2/as2/rank"
	"github.com/as2/as2/serve"
	"github.com/as2/as2/trigger"
)

// ServerConfig is what NewServer builds a server from: as2 serve's flags,
// and its --config file (serve.Config) merged in by MergeFile. Each list
// holds NAME=VALUE entries, the names a request uses.
type ServerConfig struct {
	// Rankers are NAME=SPEC, SPEC as OpenRanker reads it; a bare name that
	// is no ranker but an existing file reads the file.
	Rankers []string
	// Cascades are NAME=STAGES, STAGES as after OpenRanker's "cascade:".
	Cascades []string
	// Calibrations are NAME=FILE (as2 trigger --out): /v1/select then
	// says whether a document answers. The built-in model brings its own.
	Calibrations []string
	// Indexes are NAME=FILE, an index file (as2 index build) that POST
	// /v1/retrieve searches.
	Indexes []string
	// Hybrids are NAME=FUSION:INDEX[*WEIGHT],INDEX... (serve.ParseHybrid).
	Hybrids []string
	// Default names the model of requests that name none (empty: the
	// first name in sorted order).
	Default string
	// RuleOptions configure the rule-based rankers of Rankers and
	// Cascades.
	RuleOptions rank.Options
	// Int8 runs every transformer model on the int8 kernels
	// (WithInt8(true)), Float32 every one float32 (WithInt8(false));
	// neither, the built-in model runs int8 and model files float32.
	Int8    bool
	Float32 bool
	Limits  serve.Limits
	// Addr and Run are how as2 serve runs the server (serve.Server.Run);
	// NewServer does not use them.
	Addr string
	Run  serve.RunOptions
}

// DefaultServerConfig is as2 serve's: no ranker given means the built-in
// model, served as "builtin".
func DefaultServerConfig() ServerConfig {
	return ServerConfig{RuleOptions: rank.DefaultOptions(), Limits: serve.DefaultLimits(), Addr: "127.0.0.1:8080", Run: serve.DefaultRunOptions()}
}

// ConfigError names the setting (as2 serve's flag, without its dashes)
// and the entry of a ServerConfig that is wrong.
type ConfigError struct {
	Setting, Value string
	Err            error
}

func (e *ConfigError) Error() string {
	if e.Value == "" {
		return e.Setting + ": " + e.Err.Error()
	}
	return e.Setting + " " + e.Value + ": " + e.Err.Error()
}

func (e *ConfigError) Unwrap() error { return e.Err }

func configErr(setting, value string, err error) error {
	return &ConfigError{Setting: setting, Value: value, Err: err}
}

// MergeFile reads a YAML configuration file (serve.Config) into c. The
// file's entries come before c's, which add to them; its addr, default,
// drain, grace and limits replace c's unless given(setting) reports that
// the caller set that one (as2 serve passes its flags' Changed, so that a
// flag overrides the file). A nil given lets the file replace them all.
func (c *ServerConfig) MergeFile(path string, given func(setting string) bool) error {
	cfg, err := serve.ReadConfig(path)
	if err != nil {
		return err
	}
	if given == nil {
		given = func(string) bool { return false }
	}
	c.Rankers = append(serve.Pairs(cfg.Rankers), c.Rankers...)
	c.Cascades = append(serve.Pairs(cfg.Cascades), c.Cascades...)
	c.Calibrations = append(serve.Pairs(cfg.Calibrations), c.Calibrations...)
	c.Indexes = append(serve.Pairs(cfg.Indexes), c.Indexes...)
	c.Hybrids = append(serve.Pairs(cfg.Hybrids), c.Hybrids...)
	if cfg.Addr != "" && !given("addr") {
		c.Addr = cfg.Addr
	}
	if cfg.Grace > 0 && !given("grace") {
		c.Run.Grace = cfg.Grace
	}
	if cfg.Drain > 0 && !given("drain") {
		c.Run.Drain = cfg.Drain
	}
	if cfg.Default != "" && !given("default") {
		c.Default = cfg.Default
	}
	l := &cfg.Limits
	for setting, set := range map[string]func(){
		"max-body":      func() { c.Limits.MaxBodyBytes = l.MaxBody },
		"max-documents": func() { c.Limits.MaxDocuments = l.MaxDocuments },
		"max-text":      func() { c.Limits.MaxTextBytes = l.MaxText },
		"timeout":       func() { c.Limits.Timeout = l.Timeout },
		"max-tokens":    func() { c.Limits.MaxTokens = l.MaxTokens },
		"concurrent":    func() { c.Limits.Concurrent = l.Concurrent },
		"queue":         func() { c.Limits.Queue = l.Queue },
	} {
		if !given(setting) && l.Set(setting) {
			set()
		}
	}
	return nil
}

// ServedRankers is how many rankers NewServer serves from c: its rankers
// and cascades, or the built-in model alone when it names none.
func (c *ServerConfig) ServedRankers() int {
	return max(len(c.Rankers)+len(c.Cascades), 1)
}

// NewServer builds the server as2 serve runs: c's rankers, cascades,
// calibrations, indexes and hybrids, loaded once; with no ranker and no
// cascade, the built-in model as "builtin". Run it with its Run method, or
// use it as an http.Handler. Errors are *ConfigError, naming the entry.
func NewServer(ctx context.Context, c ServerConfig) (*serve.Server, error) {
	// serve checks the limits too; checked here, a bad one is named as
	// the setting (as2 serve's flag) it came from.
	if err := c.Limits.Validate(); err != nil {
		var le *serve.LimitError
		if errors.As(err, &le) {
			return nil, configErr(le.Limit, strconv.FormatInt(le.Value, 10), le.Err)
		}
		return nil, err
	}
	specs := c.Rankers
	if len(specs) == 0 && len(c.Cascades) == 0 {
		specs = []string{Builtin + "=" + Builtin}
	}
	rankers := map[string]rank.Ranker{}
	add := func(setting, entry, want string, spec func(target string) (string, error)) error {
		name, target, ok := strings.Cut(entry, "=")
		if !ok || name == "" || target == "" {
			return configErr(setting, fmt.Sprintf("%q", entry), fmt.Errorf("want %s", want))
		}
		if _, dup := rankers[name]; dup {
			return configErr(setting, fmt.Sprintf("%q", entry), fmt.Errorf("the name %s is given twice", name))
		}
		s, err := spec(target)
		if err != nil {
			return configErr(setting, entry, err)
		}
		r, err := OpenRanker(ctx, s, append([]RankerOption{WithRuleOptions(c.RuleOptions)}, int8Options(c.Int8, c.Float32)...)...)
		if err != nil {
			return configErr(setting, entry, err)
		}
		rankers[name] = r
		return nil
	}
	for _, entry := range c.Cascades {
		if err := add("cascade", entry, "NAME=STAGE:K,STAGE:K,...", func(stages string) (string, error) {
			return CascadePrefix + stages, nil
		}); err != nil {
			return nil, err
		}
	}
	for _, entry := range specs {
		if err := add("ranker", entry, "NAME=SPEC (builtin, a rule-based ranker or a model file)", serverSpec); err != nil {
			return nil, err
		}
	}
	srv, err := serve.New(rankers, c.Limits)
	if err != nil {
		return nil, err
	}
	if c.Default != "" {
		if err := srv.SetDefault(c.Default); err != nil {
			return nil, configErr("default", "", err)
		}
	}
	// The built-in model brings its calibration; Calibrations may replace
	// it.
	for name, r := range rankers {
		if cal, ok := CalibrationOf(r); ok {
			if err := srv.Calibrate(name, cal); err != nil {
				return nil, err
			}
		}
	}
	for _, entry := range c.Calibrations {
		name, file, ok := strings.Cut(entry, "=")
		if !ok {
			return nil, configErr("calibration", fmt.Sprintf("%q", entry), errors.New("want NAME=FILE (from as2 trigger --out)"))
		}
		cal, err := trigger.LoadCalibration(file)
		if err == nil {
			err = srv.Calibrate(name, cal)
		}
		if err != nil {
			return nil, configErr("calibration", entry, err)
		}
	}
	for _, entry := range c.Indexes {
		name, file, ok := strings.Cut(entry, "=")
		if !ok || name == "" || file == "" {
			return nil, configErr("index", fmt.Sprintf("%q", entry), errors.New("want NAME=FILE (an index file from as2 index build)"))
		}
		x, err := OpenIndex(ctx, file)
		if err != nil {
			return nil, configErr("index", entry, notFound(file, err))
		}
		if err := srv.AddIndex(name, x.ServeIndex()); err != nil {
			return nil, configErr("index", entry, err)
		}
	}
	for _, entry := range c.Hybrids {
		name, fusion, ok := strings.Cut(entry, "=")
		if !ok || name == "" {
			return nil, configErr("hybrid", entry, errors.New("want NAME=FUSION:INDEX[*WEIGHT],INDEX..."))
		}
		h, err := serve.ParseHybrid(fusion)
		if err == nil {
			err = srv.AddHybrid(name, h)
		}
		if err != nil {
			return nil, configErr("hybrid", entry, err)
		}
	}
	return srv, nil
}

// serverSpec is the OpenRanker spec of a ranker entry's target. A bare
// name that is neither builtin nor a rule-based ranker reads the file of
// that name when there is one (config files written before file: was
// needed), and is otherwise reported both ways, since either was meant.
func serverSpec(target string) (string, error) {
	if target == Builtin || rank.Known(target) || strings.HasPrefix(target, CascadePrefix) {
		return target, nil
	}
	file := SpecFile(target)
	if file == "" {
		if _, err := os.Stat(target); err != nil {
			return "", fmt.Errorf("unknown ranker %q (%s, or rule-based: %s), and no model file %w", target, Builtin, rank.NamesHelp(), &NotFoundError{Path: target, Err: err})
		}
		return FilePrefix + target, nil
	}
	return target, nil
}
