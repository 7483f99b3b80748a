package interp

import (
	"fmt"

	"github.com/resumecontract/resumecheck/tla/eval"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
)

// Config turns a parsed cfg into the evaluator's terms. A section the
// interpreter does not interpret (POSTCONDITION) is refused by the
// caller; ALIAS only changes how TLC prints, and is ignored.
func Config(cfg *tlacfg.Config) *eval.Config {
	out := &eval.Config{
		Constants:         map[string]eval.Value{},
		Substs:            map[string]string{},
		Specification:     cfg.Specification,
		Init:              cfg.Init,
		Next:              cfg.Next,
		Invariants:        cfg.Invariants,
		Properties:        cfg.Properties,
		Constraints:       cfg.Constraints,
		ActionConstraints: cfg.Other["ACTION_CONSTRAINTS"],
		Where: func(section, name string) string {
			if section == "" {
				return cfg.Path
			}
			return fmt.Sprintf("%s:%d", cfg.Path, cfg.Line(section, name))
		},
	}
	if sym := cfg.Other["SYMMETRY"]; len(sym) > 0 {
		out.Symmetry = sym[0]
	}
	if view := cfg.Other["VIEW"]; len(view) > 0 {
		out.View = view[0]
	}
	for _, k := range cfg.Constants {
		if k.Subst != "" && k.Module != "" {
			if out.ModSubsts == nil {
				out.ModSubsts = map[string]map[string]string{}
			}
			if out.ModSubsts[k.Module] == nil {
				out.ModSubsts[k.Module] = map[string]string{}
			}
			out.ModSubsts[k.Module][k.Name] = k.Subst
			continue
		}
		if k.Module != "" {
			if out.ModConstants == nil {
				out.ModConstants = map[string]map[string]eval.Value{}
			}
			if out.ModConstants[k.Module] == nil {
				out.ModConstants[k.Module] = map[string]eval.Value{}
			}
			out.ModConstants[k.Module][k.Name] = eval.FromTLA(k.Value)
			continue
		}
		out.ConstantOrder = append(out.ConstantOrder, k.Name)
		if k.Subst != "" {
			out.Substs[k.Name] = k.Subst
			continue
		}
		out.Constants[k.Name] = eval.FromTLA(k.Value)
	}
	return out
}
