package check

import (
	"github.com/resumecontract/resumecheck/engine"
	"github.com/resumecontract/resumecheck/model"
)

// machine adapts the Resume model to the engine's Model interface.
type machine struct{ m *model.Model }

func (a machine) Init() []model.State { return []model.State{a.m.Init()} }

func (a machine) Next(s model.State, emit func(model.Label, model.State)) { a.m.Next(s, emit) }

func (a machine) Encode(dst []byte, s model.State) []byte { return a.m.Encode(dst, s) }

func (a machine) Decode(b []byte) (model.State, error) { return a.m.Decode(b) }

var _ engine.Model[model.State, model.Label] = machine{}
