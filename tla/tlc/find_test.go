package tlc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestParseJavaVersion(t *testing.T) {
	tests := []struct {
		out     string
		version string
		major   int
	}{
		{"openjdk version \"17.0.15\" 2025-04-15\nOpenJDK Runtime Environment (build 17.0.15+6-Debian-1deb12u1)\n", "17.0.15", 17},
		{"java version \"1.8.0_292\"\nJava(TM) SE Runtime Environment (build 1.8.0_292-b10)\n", "1.8.0_292", 8},
		{"openjdk version \"11\" 2018-09-25\n", "11", 11},
		{"openjdk version \"21-ea\" 2023-09-19\n", "21-ea", 21},
		{"Picked up JAVA_TOOL_OPTIONS: -Xss4m\nopenjdk version \"22.0.1\" 2024-04-16\n", "22.0.1", 22},
	}
	for _, tt := range tests {
		info, ok := ParseJavaVersion(tt.out)
		if !ok || info.Version != tt.version || info.Major != tt.major {
			t.Errorf("ParseJavaVersion(%q) = %+v, %v; want %s (%d)", tt.out, info, ok, tt.version, tt.major)
		}
	}
	if _, ok := ParseJavaVersion("bash: java: command not found"); ok {
		t.Error("ParseJavaVersion accepted garbage")
	}
}

func TestFindJarOrder(t *testing.T) {
	dir := isolate(t)
	def, err := DefaultJar()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "cache", "resumecheck", "tla2tools.jar"); runtime.GOOS == "linux" && def != want {
		t.Errorf("DefaultJar = %s, want %s", def, want)
	}

	// Nothing anywhere: the error says where it looked and how to fix it.
	_, _, err = FindJar("")
	if !errors.Is(err, ErrNoJar) || !errors.Is(err, ErrUnavailable) ||
		!strings.Contains(err.Error(), "nothing at "+def) || !strings.Contains(err.Error(), "tlcrun install") {
		t.Errorf("no jar: %v", err)
	}

	// The default location.
	if err := os.MkdirAll(filepath.Dir(def), 0o755); err != nil {
		t.Fatal(err)
	}
	fakeJar(t, filepath.Dir(def), "tlc2/TLC.class")
	if p, from, err := FindJar(""); err != nil || p != def || from != FromDefault {
		t.Errorf("default: %s %s %v", p, from, err)
	}

	// The environment comes before the default, and a missing file there
	// is an error, not a reason to look further.
	env := fakeJar(t, t.TempDir(), "tlc2/TLC.class")
	t.Setenv(JarEnv, env)
	if p, from, err := FindJar(""); err != nil || p != env || from != FromEnv {
		t.Errorf("env: %s %s %v", p, from, err)
	}
	t.Setenv(JarEnv, filepath.Join(dir, "nowhere.jar"))
	if _, _, err := FindJar(""); !errors.Is(err, ErrNoJar) || !strings.Contains(err.Error(), JarEnv+": ") {
		t.Errorf("env to a missing file: %v", err)
	}

	// The flag comes first.
	if p, from, err := FindJar(env); err != nil || p != env || from != FromFlag {
		t.Errorf("flag: %s %s %v", p, from, err)
	}
	if _, _, err := FindJar(dir); !errors.Is(err, ErrNoJar) || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("flag to a folder: %v", err)
	}
}

func TestCheckJar(t *testing.T) {
	dir := t.TempDir()
	good := fakeJar(t, dir, "tlc2/TLC.class", "tla2sany/SANY.class")
	info, err := CheckJar(good)
	if err != nil || info.Version != "v9.9.9" || info.Revision != "abc1234" {
		t.Errorf("CheckJar(good) = %+v, %v", info, err)
	}

	other := fakeJar(t, t.TempDir(), "org/example/Main.class")
	if _, err := CheckJar(other); !errors.Is(err, ErrNotTLC) || !strings.Contains(err.Error(), "no tlc2.TLC class") {
		t.Errorf("a jar without TLC: %v", err)
	}

	text := filepath.Join(dir, "notes.jar")
	os.WriteFile(text, []byte("this is not a zip file\n"), 0o644)
	if _, err := CheckJar(text); !errors.Is(err, ErrNotTLC) || !strings.Contains(err.Error(), "is not a jar (zip) file") {
		t.Errorf("a text file: %v", err)
	}
}

func TestFindJava(t *testing.T) {
	dir := isolate(t)
	if _, _, err := FindJava(""); !errors.Is(err, ErrNoJava) || !strings.Contains(err.Error(), "JAVA_HOME not set and no java on PATH") {
		t.Errorf("no java: %v", err)
	}
	java := fakeJava(t, dir, "echo 'openjdk version \"17.0.2\" 2022-01-18' >&2\n")
	if p, from, err := FindJava(""); err != nil || p != java || from != FromPath {
		t.Errorf("PATH: %s %s %v", p, from, err)
	}
	home := t.TempDir()
	t.Setenv("JAVA_HOME", home)
	if _, _, err := FindJava(""); !errors.Is(err, ErrNoJava) || !strings.Contains(err.Error(), "has no bin/java") {
		t.Errorf("JAVA_HOME without java: %v", err)
	}
	homeJava := fakeJava(t, home, "exit 0\n")
	if p, from, err := FindJava(""); err != nil || p != homeJava || from != FromJavaHome {
		t.Errorf("JAVA_HOME: %s %s %v", p, from, err)
	}
	if p, from, err := FindJava(java); err != nil || p != java || from != FromFlag {
		t.Errorf("flag: %s %s %v", p, from, err)
	}
}

func TestCheckJava(t *testing.T) {
	ctx := context.Background()
	good := fakeJava(t, t.TempDir(), "echo 'openjdk version \"17.0.2\" 2022-01-18' >&2\n")
	if info, err := CheckJava(ctx, good); err != nil || info.Major != 17 {
		t.Errorf("Java 17: %+v %v", info, err)
	}
	old := fakeJava(t, t.TempDir(), "echo 'java version \"1.8.0_292\"' >&2\n")
	_, err := CheckJava(ctx, old)
	if !errors.Is(err, ErrJavaTooOld) || !errors.Is(err, ErrUnavailable) ||
		!strings.Contains(err.Error(), "is Java 8 (1.8.0_292); TLC needs Java 11 or later") {
		t.Errorf("Java 8: %v", err)
	}
	broken := fakeJava(t, t.TempDir(), "echo 'Segmentation fault' >&2\nexit 139\n")
	if _, err := CheckJava(ctx, broken); !errors.Is(err, ErrNoJava) || !strings.Contains(err.Error(), "did not say which Java it is") {
		t.Errorf("broken java: %v", err)
	}
}

func TestFindReportsEverythingMissing(t *testing.T) {
	isolate(t)
	_, err := Find(context.Background(), "", "")
	if !errors.Is(err, ErrNoJar) || !errors.Is(err, ErrNoJava) {
		t.Fatalf("Find = %v, want both the jar and java missing", err)
	}
	if n := strings.Count(err.Error(), "\n"); n != 1 {
		t.Errorf("want one line per missing piece:\n%v", err)
	}
}
