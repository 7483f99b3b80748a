package tlc

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// JarEnv is the environment variable that names tla2tools.jar.
const JarEnv = "TLA2TOOLS_JAR"

// MinJava is the oldest Java major version TLC runs on.
const MinJava = 11

// ErrUnavailable is matched (errors.Is) by every error saying that TLC
// cannot run here: no jar, a file that is not TLC's jar, no Java, or a
// Java too old. Such errors say what to do about it.
var ErrUnavailable = errors.New("tlc: TLC is not available")

// The particular reasons, each also matching ErrUnavailable.
var (
	ErrNoJar      = errors.New("tlc: no tla2tools.jar")
	ErrNotTLC     = errors.New("tlc: not a TLC jar")
	ErrNoJava     = errors.New("tlc: no java")
	ErrJavaTooOld = errors.New("tlc: java too old")
)

// unavailable is an error of one of the reasons above.
type unavailable struct {
	reason error
	msg    string
}

func (e *unavailable) Error() string { return e.msg }

func (e *unavailable) Is(target error) bool {
	return target == ErrUnavailable || target == e.reason
}

func unavailablef(reason error, format string, args ...any) error {
	return &unavailable{reason: reason, msg: fmt.Sprintf(format, args...)}
}

// Where a jar or a java was found.
const (
	FromFlag     = "flag"
	FromEnv      = "environment"
	FromDefault  = "default location"
	FromJavaHome = "JAVA_HOME"
	FromPath     = "PATH"
)

// DefaultJar returns where tlcrun looks for tla2tools.jar last, and where
// tlcrun install puts it: tla2tools.jar in the folder resumecheck of the
// user's cache folder ($XDG_CACHE_HOME, else ~/.cache, on Linux;
// ~/Library/Caches on macOS; %LocalAppData% on Windows).
func DefaultJar() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("tlc: no cache folder for the default tla2tools.jar: %w", err)
	}
	return filepath.Join(dir, "resumecheck", "tla2tools.jar"), nil
}

// InstallHint says how to get a jar; error messages end with it.
const InstallHint = "get one with 'tlcrun install --release V --sha256 H' (a TLC release and its SHA-256), " +
	"or download tla2tools.jar from https://github.com/tlaplus/tlaplus/releases and set " + JarEnv + " to its path"

// JavaHint says how to get a Java.
const JavaHint = "install a Java runtime, version 11 or later (e.g. apt-get install openjdk-17-jre-headless), " +
	"and put java on PATH or set JAVA_HOME"

// FindJar returns the tla2tools.jar to use and where it was found: the
// flag's value if given, else $TLA2TOOLS_JAR if set, else DefaultJar if
// it exists. A path that is given but absent is an error, not a reason to
// look further. The jar is not opened; see CheckJar.
func FindJar(flag string) (path, from string, err error) {
	exists := func(p, what string) error {
		st, err := os.Stat(p)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return unavailablef(ErrNoJar, "%s: %s does not exist; %s", what, p, InstallHint)
		case err != nil:
			return unavailablef(ErrNoJar, "%s: %v", what, err)
		case st.IsDir():
			return unavailablef(ErrNoJar, "%s: %s is a folder, not tla2tools.jar", what, p)
		}
		return nil
	}
	if flag != "" {
		return flag, FromFlag, exists(flag, "--jar")
	}
	if env := os.Getenv(JarEnv); env != "" {
		return env, FromEnv, exists(env, JarEnv)
	}
	def, derr := DefaultJar()
	if derr == nil {
		if _, err := os.Stat(def); err == nil {
			return def, FromDefault, nil
		}
	}
	where := "no default location"
	if derr == nil {
		where = "nothing at " + def
	}
	return "", "", unavailablef(ErrNoJar, "no tla2tools.jar: --jar not given, %s not set, %s; %s", JarEnv, where, InstallHint)
}

// JarInfo is what a jar's manifest says about the TLC inside.
type JarInfo struct {
	// Version is the release (the manifest's X-Git-Tag, e.g. "v1.8.0", or
	// Implementation-Version) and Revision the commit it was built from;
	// either may be empty.
	Version, Revision string
}

// CheckJar opens path as a zip file and checks that it holds TLC
// (tlc2/TLC.class); it reads the version from the jar's manifest.
func CheckJar(path string) (JarInfo, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return JarInfo{}, unavailablef(ErrNoJar, "%s does not exist; %s", path, InstallHint)
		}
		return JarInfo{}, unavailablef(ErrNotTLC, "%s is not a jar (zip) file: %v; %s", path, err, InstallHint)
	}
	defer zr.Close()
	var info JarInfo
	hasTLC := false
	for _, f := range zr.File {
		switch f.Name {
		case "tlc2/TLC.class":
			hasTLC = true
		case "META-INF/MANIFEST.MF":
			if rc, err := f.Open(); err == nil {
				info = readManifest(rc)
				rc.Close()
			}
		}
	}
	if !hasTLC {
		return info, unavailablef(ErrNotTLC, "%s is a jar without TLC in it (no tlc2.TLC class); %s", path, InstallHint)
	}
	return info, nil
}

// readManifest reads the version attributes of a jar manifest.
func readManifest(r io.Reader) JarInfo {
	attrs := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ": "); ok {
			attrs[k] = strings.TrimSpace(v)
		}
	}
	info := JarInfo{Version: attrs["X-Git-Tag"], Revision: attrs["X-Git-ShortRevision"]}
	if info.Version == "" {
		info.Version = attrs["Implementation-Version"]
	}
	if info.Revision == "" {
		info.Revision = attrs["Build-Rev"]
	}
	return info
}

// FindJava returns the java to run TLC with and where it was found: the
// flag's value if given, else $JAVA_HOME/bin/java if JAVA_HOME is set,
// else java on PATH.
func FindJava(flag string) (path, from string, err error) {
	if flag != "" {
		if _, err := os.Stat(flag); err != nil {
			return flag, FromFlag, unavailablef(ErrNoJava, "--java %s: %v", flag, errors.Unwrap(err))
		}
		return flag, FromFlag, nil
	}
	if home := os.Getenv("JAVA_HOME"); home != "" {
		p := filepath.Join(home, "bin", "java")
		if _, err := os.Stat(p); err != nil {
			return p, FromJavaHome, unavailablef(ErrNoJava, "JAVA_HOME=%s has no bin/java; set JAVA_HOME to a Java installation, or unset it to use java on PATH", home)
		}
		return p, FromJavaHome, nil
	}
	p, err := exec.LookPath("java")
	if err != nil {
		return "", "", unavailablef(ErrNoJava, "no java: JAVA_HOME not set and no java on PATH; %s", JavaHint)
	}
	return p, FromPath, nil
}

// JavaInfo is what "java -version" said.
type JavaInfo struct {
	// Version is the version string, e.g. "17.0.15" or "1.8.0_292", and
	// Major its feature release (17, 8).
	Version string
	Major   int
	// Description is the first line, e.g. `openjdk version "17.0.15" 2025-04-15`.
	Description string
}

var javaVersionRE = regexp.MustCompile(`(?m)^\S+ version "([^"]+)"`)

// ParseJavaVersion reads the output of "java -version".
func ParseJavaVersion(out string) (JavaInfo, bool) {
	m := javaVersionRE.FindStringSubmatchIndex(out)
	if m == nil {
		return JavaInfo{}, false
	}
	line, _, _ := strings.Cut(out[m[0]:], "\n")
	info := JavaInfo{Version: out[m[2]:m[3]], Description: strings.TrimSpace(line)}
	// "1.8.0_292" is Java 8; from 9 on the major version comes first
	// ("11.0.2", "17", "21-ea").
	v := strings.TrimPrefix(info.Version, "1.")
	end := strings.IndexFunc(v, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(v)
	}
	n, err := strconv.Atoi(v[:end])
	if err != nil {
		return JavaInfo{}, false
	}
	info.Major = n
	return info, true
}

// javaCache remembers CheckJava's answers: running java costs a tenth of
// a second, and a sweep runs TLC many times.
var javaCache sync.Map // path -> JavaInfo

// CheckJava runs "java -version" and checks that the version is MinJava
// or later.
func CheckJava(ctx context.Context, java string) (JavaInfo, error) {
	if v, ok := javaCache.Load(java); ok {
		return v.(JavaInfo), nil
	}
	cmd := exec.CommandContext(ctx, java, "-version")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		return JavaInfo{}, ctx.Err()
	}
	info, ok := ParseJavaVersion(out.String())
	if !ok {
		msg := firstLine(out.String())
		if err != nil {
			msg = fmt.Sprintf("%v %s", err, msg)
		}
		return JavaInfo{}, unavailablef(ErrNoJava, "%s -version did not say which Java it is (%s); %s", java, strings.TrimSpace(msg), JavaHint)
	}
	if info.Major < MinJava {
		return info, unavailablef(ErrJavaTooOld, "%s is Java %d (%s); TLC needs Java %d or later: %s", java, info.Major, info.Version, MinJava, JavaHint)
	}
	javaCache.Store(java, info)
	return info, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// Setup is a TLC that can run: the jar, the java, and what each is.
type Setup struct {
	Jar, JarFrom   string
	JarInfo        JarInfo
	Java, JavaFrom string
	JavaInfo       JavaInfo
}

// Find locates and checks the jar and the java (see FindJar and
// FindJava; empty flags mean "search"). The error, matching
// ErrUnavailable, lists everything that is missing and how to fix it.
func Find(ctx context.Context, jarFlag, javaFlag string) (*Setup, error) {
	s := &Setup{}
	var errs []error
	var err error
	if s.Jar, s.JarFrom, err = FindJar(jarFlag); err == nil {
		s.JarInfo, err = CheckJar(s.Jar)
	}
	if err != nil {
		errs = append(errs, err)
	}
	if s.Java, s.JavaFrom, err = FindJava(javaFlag); err == nil {
		s.JavaInfo, err = CheckJava(ctx, s.Java)
	}
	if err != nil {
		errs = append(errs, err)
	}
	return s, errors.Join(errs...)
}

// TLCVersion runs TLC to ask its version, e.g. "TLC2 Version
// 2026.04.29.164809 (rev: cc6b616)": the proof that this java runs this
// jar.
func (s *Setup) TLCVersion(ctx context.Context) (string, error) {
	// TLC prints its version before it looks at its arguments; -version
	// is not an option of every release, so the exit status is ignored.
	cmd := exec.CommandContext(ctx, s.Java, "-cp", s.Jar, "tlc2.TLC", "-version")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "TLC2 Version ") {
			return strings.TrimSpace(line), nil
		}
	}
	if runErr == nil {
		runErr = errors.New("no version printed")
	}
	return "", unavailablef(ErrNotTLC, "%s -cp %s tlc2.TLC did not run TLC (%v: %s); %s",
		s.Java, s.Jar, runErr, firstLine(out.String()), InstallHint)
}
