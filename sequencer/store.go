package sequencer

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"sync"
)

// Fact is one durable row. A run's durable state is a set of facts, only
// ever added to: its definition, completion records, admission claims, the
// park, consume-gate grants, resumes, forks, refusals, recoveries and trace
// events. A fact's key (Kind, K1, K2, K3) is unique within its run; the
// store refuses a second fact with a taken key, and that refusal is what
// the admission ledger and the consume gate build their compare-and-set
// on.
type Fact struct {
	Kind       string
	K1, K2, K3 int64
	// Body is the fact's JSON payload.
	Body []byte
}

func (f Fact) key() string {
	return f.Kind + "/" + strconv.FormatInt(f.K1, 10) + "/" + strconv.FormatInt(f.K2, 10) + "/" + strconv.FormatInt(f.K3, 10)
}

// Sum is the checksum a store keeps beside a fact of run: a SHA-256 over
// the run, the key and the body. A row whose sum does not match is
// reported as ErrCorrupt on load.
func Sum(run string, f Fact) string {
	var sum [sha256.Size]byte
	sumOf(run, f, &sum)
	return hex.EncodeToString(sum[:16])
}

// sumOf hashes "len(run):run|kind/k1/k2/k3|body" into sum: what the
// stores have always written (a fact's sum is on disk), without the
// allocations of formatting it (every row of every load is checked).
func sumOf(run string, f Fact, sum *[sha256.Size]byte) {
	var buf [128]byte
	b := strconv.AppendInt(buf[:0], int64(len(run)), 10)
	b = append(b, ':')
	b = append(b, run...)
	b = append(b, '|')
	b = append(b, f.Kind...)
	b = append(b, '/')
	b = strconv.AppendInt(b, f.K1, 10)
	b = append(b, '/')
	b = strconv.AppendInt(b, f.K2, 10)
	b = append(b, '/')
	b = strconv.AppendInt(b, f.K3, 10)
	b = append(b, '|')
	h := sha256.New()
	h.Write(b)
	h.Write(f.Body)
	h.Sum(sum[:0])
}

// CheckSum returns ErrCorrupt (naming the row) when sum is not f's.
func CheckSum(run string, f Fact, sum string) error {
	var want [sha256.Size]byte
	sumOf(run, f, &want)
	var hexed [32]byte
	hex.Encode(hexed[:], want[:16])
	if string(hexed[:]) != sum {
		return fmt.Errorf("%w: run %s, row %s: checksum mismatch", ErrCorrupt, run, f.key())
	}
	return nil
}

// SortFacts orders facts by key, the order Load returns them in.
func SortFacts(fs []Fact) {
	slices.SortFunc(fs, func(a, b Fact) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.K1, b.K1), cmp.Compare(a.K2, b.K2), cmp.Compare(a.K3, b.K3))
	})
}

// Store is the durable store of runs. Every method is one persistence
// operation: a transaction that commits whole or not at all.
//
// Implementations: MemStore (tests), sqlitestore (embedded, the default)
// and pgstore (shared across processes and hosts). storetest holds the
// suite every implementation passes.
type Store interface {
	// Create adds a run with its first facts; ErrRunExists if the run is
	// already there.
	Create(ctx context.Context, run string, facts []Fact) error
	// Update loads the run's facts under a write lock held against every
	// other Update of the run, in any process, calls decide with them, and
	// adds the facts decide returns in the same transaction. decide must
	// be pure: it may run more than once. If decide fails, or a returned
	// fact's key is taken (ErrDuplicate), nothing is written. ErrUnknownRun
	// if there is no such run.
	Update(ctx context.Context, run string, decide func(facts []Fact) ([]Fact, error)) error
	// Load returns the run's facts in key order, checksums verified
	// (ErrCorrupt); ErrUnknownRun if there is no such run.
	Load(ctx context.Context, run string) ([]Fact, error)
	// Runs lists the runs in the store.
	Runs(ctx context.Context) ([]string, error)
	Close() error
}

// MemStore is an in-memory Store for unit tests: the same semantics,
// nothing durable.
type MemStore struct {
	mu   sync.Mutex
	runs map[string]map[string]memRow
}

type memRow struct {
	f   Fact
	sum string
}

// NewMemStore returns an empty in-memory store.
func NewMemStore() *MemStore { return &MemStore{runs: map[string]map[string]memRow{}} }

func (m *MemStore) Create(ctx context.Context, run string, facts []Fact) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.runs[run]; ok {
		return fmt.Errorf("%w: %s", ErrRunExists, run)
	}
	rows := map[string]memRow{}
	if err := addRows(run, rows, facts); err != nil {
		return err
	}
	m.runs[run] = rows
	return nil
}

func addRows(run string, rows map[string]memRow, facts []Fact) error {
	add := map[string]memRow{}
	for _, f := range facts {
		k := f.key()
		if _, taken := rows[k]; taken {
			return fmt.Errorf("%w: run %s, row %s", ErrDuplicate, run, k)
		}
		if _, taken := add[k]; taken {
			return fmt.Errorf("%w: run %s, row %s", ErrDuplicate, run, k)
		}
		add[k] = memRow{f: Fact{Kind: f.Kind, K1: f.K1, K2: f.K2, K3: f.K3, Body: slices.Clone(f.Body)}, sum: Sum(run, f)}
	}
	for k, r := range add {
		rows[k] = r
	}
	return nil
}

func (m *MemStore) Update(ctx context.Context, run string, decide func([]Fact) ([]Fact, error)) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	rows, ok := m.runs[run]
	if !ok {
		return fmt.Errorf("%w: %s", ErrUnknownRun, run)
	}
	facts, err := memFacts(run, rows)
	if err != nil {
		return err
	}
	add, err := decide(facts)
	if err != nil {
		return err
	}
	return addRows(run, rows, add)
}

func memFacts(run string, rows map[string]memRow) ([]Fact, error) {
	out := make([]Fact, 0, len(rows))
	for _, r := range rows {
		if err := CheckSum(run, r.f, r.sum); err != nil {
			return nil, err
		}
		out = append(out, Fact{Kind: r.f.Kind, K1: r.f.K1, K2: r.f.K2, K3: r.f.K3, Body: slices.Clone(r.f.Body)})
	}
	SortFacts(out)
	return out, nil
}

func (m *MemStore) Load(ctx context.Context, run string) ([]Fact, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rows, ok := m.runs[run]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnknownRun, run)
	}
	return memFacts(run, rows)
}

func (m *MemStore) Runs(ctx context.Context) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for r := range m.runs {
		out = append(out, r)
	}
	slices.Sort(out)
	return out, nil
}

// Corrupt overwrites the body of one stored fact without updating its
// checksum, as a disk or an operator might: for tests of ErrCorrupt.
func (m *MemStore) Corrupt(run, kind string, k1, k2, k3 int64, body []byte) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := Fact{Kind: kind, K1: k1, K2: k2, K3: k3}.key()
	r, ok := m.runs[run][k]
	if ok {
		r.f.Body = body
		m.runs[run][k] = r
	}
	return ok
}

func (m *MemStore) Close() error { return nil }

// Count is the number of facts of the run, corrupted or not.
func (m *MemStore) Count(run string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.runs[run])
}
