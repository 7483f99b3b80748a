package check

import (
	"encoding/binary"

	"github.com/resumecontract/resumecheck/engine"
	"github.com/resumecontract/resumecheck/model"
)

// machine adapts the Resume model to the engine's Model interface: the
// engine explores packed states, encoded as their used words.
type machine struct {
	m     Machine
	words int
}

func newMachine(m Machine) machine { return machine{m: m, words: m.PackedWords()} }

func (a machine) Init() []model.Packed { return []model.Packed{a.m.InitPacked()} }

func (a machine) Next(s model.Packed, emit func(model.Label, model.Packed)) { a.m.nextPacked(s, emit) }

func (a machine) Width() int { return 8 * a.words }

func (a machine) Encode(dst []byte, s model.Packed) {
	for i := range a.words {
		binary.LittleEndian.PutUint64(dst[8*i:], s[i])
	}
}

func (a machine) Decode(src []byte) model.Packed {
	var p model.Packed
	for i := range a.words {
		p[i] = binary.LittleEndian.Uint64(src[8*i:])
	}
	return p
}

var _ engine.Model[model.Packed, model.Label] = machine{}
