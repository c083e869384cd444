// Package probe holds what both client programs share: their flags, the trace IDs they
// decide, and the JSON report they print for the Python scenarios to read.
package probe

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

// Flags are the options both programs take.
type Flags struct {
	URL      string
	Service  string
	Interval time.Duration
	Wait     time.Duration
	Ops      []string
	IDs      string
}

// Parse reads the common flags (and any the caller defined before).
func Parse() Flags {
	var f Flags
	var ops string
	flag.StringVar(&f.URL, "url", "http://127.0.0.1:5778/sampling", "the sampling URL")
	flag.StringVar(&f.Service, "service", "interop", "the service name sent as ?service=")
	flag.DurationVar(&f.Interval, "interval", 200*time.Millisecond, "polling interval")
	flag.DurationVar(&f.Wait, "wait", 15*time.Second, "how long to wait for the first strategy")
	flag.StringVar(&ops, "ops", "op", "comma-separated operation names to probe and decide")
	flag.StringVar(&f.IDs, "ids", "", "file of trace IDs, 32 hex digits a line")
	flag.Parse()
	f.Ops = strings.Split(ops, ",")
	return f
}

// TraceIDs reads the file of trace IDs (none when path is empty).
func TraceIDs(path string) ([][16]byte, error) {
	if path == "" {
		return nil, nil
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	var ids [][16]byte
	scanner := bufio.NewScanner(file)
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		if line == "" {
			continue
		}
		raw, err := hex.DecodeString(line)
		if err != nil || len(raw) != 16 {
			return nil, fmt.Errorf("trace ID %q: want 32 hex digits", line)
		}
		var id [16]byte
		copy(id[:], raw)
		ids = append(ids, id)
	}
	return ids, scanner.Err()
}

// Probe is what one decision on a trace ID whose low 64 bits are 0 showed: sampled
// at any rate above 0, with the attributes (tags) the sampler in force sets.
type Probe struct {
	Sampled    bool           `json:"sampled"`
	Attributes map[string]any `json:"attributes"`
}

// Report is the program's one line of output.
type Report struct {
	Client    string            `json:"client"`
	Got       bool              `json:"got_strategy"`
	WaitedMs  int64             `json:"waited_ms"`
	Sampler   string            `json:"sampler"`
	Effective map[string]Probe  `json:"effective"`
	Decisions map[string]string `json:"decisions"`
	Errors    []string          `json:"errors"`
}

// Print writes the report as one JSON line.
func (r *Report) Print() {
	out, err := json.Marshal(r)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(string(out))
}

// Until polls ready every 10 ms until it is true or wait has passed; the time waited.
func Until(wait time.Duration, ready func() bool) (bool, time.Duration) {
	start := time.Now()
	for {
		if ready() {
			return true, time.Since(start)
		}
		if time.Since(start) > wait {
			return false, time.Since(start)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
