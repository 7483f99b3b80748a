package a

import "testing"

func TestPass(t *testing.T) { t.Log("quiet unless it fails") }

func TestFail(t *testing.T) {
	t.Log("context the failure needs")
	t.Errorf("got %d, want %d", 1, 2)
}

func TestSkipTLC(t *testing.T) { t.Skip("needs TLC: set TLA2TOOLS_JAR") }

func TestSub(t *testing.T) {
	t.Run("ok", func(t *testing.T) {})
	t.Run("tlc", func(t *testing.T) { t.Skip("needs TLC: set TLA2TOOLS_JAR") })
	t.Run("bad", func(t *testing.T) { t.Fatal("sub failed") })
}
