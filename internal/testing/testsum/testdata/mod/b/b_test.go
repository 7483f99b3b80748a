package b

import "testing"

func TestOK(t *testing.T) {}

func TestPG(t *testing.T) {
	t.Skipf("no PostgreSQL: set %s", "RESUMECHECK_PG_DSN")
}
