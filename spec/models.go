package spec

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// ManifestFile is the manifest's file name: the models of a spec's folder
// and their expected results (check.Manifest reads it in full).
const ManifestFile = "manifest.json"

// ModelCfgs are the paths of the cfgs that the manifest in dir lists, in
// its order, those of tier only unless tier is "". It is the light reader
// for the tests of packages below check (which reads the whole manifest,
// check.Manifest.Cfgs): a test selects the models it runs by the
// manifest, never by a glob of the folder, where a cfg a user copied in
// would be a model of unknown size.
func ModelCfgs(dir, tier string) ([]string, error) {
	path := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m struct {
		Models []struct {
			Cfg  string `json:"cfg"`
			Tier string `json:"tier"`
		} `json:"models"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("spec: %s: %v", path, err)
	}
	var out []string
	for _, e := range m.Models {
		if e.Cfg == "" {
			return nil, fmt.Errorf("spec: %s: a model without a cfg", path)
		}
		if tier == "" || e.Tier == tier {
			out = append(out, filepath.Join(dir, e.Cfg))
		}
	}
	return out, nil
}
