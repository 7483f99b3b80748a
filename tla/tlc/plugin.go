package tlc

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
)

// pluginSource is the fingerprint set TLC's distributed server needs and
// TLC (since rev 6fde5a9ea) no longer provides: TLC's own set, exported as
// an RMI remote object. See the comment at its top.
//
//go:embed plugin/ExportedFPSet.java
var pluginSource []byte

// bindSource runs TLC's distributed server with its RMI sockets listening
// on one address only. See the comment at its top.
//
//go:embed plugin/Bind.java
var bindSource []byte

// BindClass is the class that runs TLC's server with its RMI server
// sockets bound to the address in the system property BindProperty, the
// exported objects' port being the one in ObjectsPortProperty.
const (
	BindClass           = "resumecheck.tlc.Bind"
	BindProperty        = "resumecheck.rmi.bind"
	ObjectsPortProperty = "resumecheck.rmi.objects"
)

// PluginClass is the plug-in's class, named to TLC in its system property
// for a custom fingerprint set (tlc2.tool.fp.FPSet.impl).
const PluginClass = "resumecheck.tlc.ExportedFPSet"

// ErrNoJavac is matched (with ErrUnavailable) by the error of a Java
// without javac, which the distributed server needs to build its plug-in.
var ErrNoJavac = errors.New("tlc: no javac")

// JDKHint says how to get javac.
const JDKHint = "install a JDK, version 11 or later (e.g. apt-get install openjdk-17-jdk-headless), " +
	"and set JAVA_HOME to it or put its javac on PATH"

// Plugin returns a class folder holding the plug-in compiled against this
// setup's jar, for the class path of TLC's distributed server. It is
// compiled once per jar, with the javac beside the setup's java (else
// javac on PATH), into the folder resumecheck/tlc-plugin of the user's
// cache folder, and taken from there afterwards; a changed jar, java or
// plug-in gets a folder of its own.
func (s *Setup) Plugin(ctx context.Context) (string, error) {
	javac, err := FindJavac(s.Java)
	if err != nil {
		return "", err
	}
	jar, err := filepath.Abs(s.Jar)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(jar)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, part := range [][]byte{pluginSource, bindSource, []byte(jar), []byte(strconv.FormatInt(st.Size(), 10)),
		[]byte(st.ModTime().UTC().String()), []byte(javac)} {
		h.Write(part)
		h.Write([]byte{0})
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("tlc: no cache folder for the distributed server's plug-in: %w", err)
	}
	parent := filepath.Join(cache, "resumecheck", "tlc-plugin")
	dir := filepath.Join(parent, hex.EncodeToString(h.Sum(nil))[:16])
	class := filepath.Join(dir, "resumecheck", "tlc", "Bind.class")
	if _, err := os.Stat(class); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("tlc: the distributed server's plug-in: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "build-")
	if err != nil {
		return "", fmt.Errorf("tlc: the distributed server's plug-in: %w", err)
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "ExportedFPSet.java")
	if err := os.WriteFile(src, pluginSource, 0o644); err != nil {
		return "", err
	}
	bind := filepath.Join(tmp, "Bind.java")
	if err := os.WriteFile(bind, bindSource, 0o644); err != nil {
		return "", err
	}
	classes := filepath.Join(tmp, "classes")
	cmd := exec.CommandContext(ctx, javac, "-nowarn", "-d", classes, "-cp", jar, src, bind)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("tlc: compiling the distributed server's plug-in against %s with %s: %v\n%s"+
			"(the plug-in uses TLC's classes MultiFPSet, MSBDiskFPSet and FPSetConfiguration: is this jar a TLC of 2013 or later?)",
			jar, javac, err, out.String())
	}
	// Another run may have put it there meanwhile: its copy is as good.
	if err := os.Rename(classes, dir); err != nil {
		if _, serr := os.Stat(class); serr != nil {
			return "", fmt.Errorf("tlc: the distributed server's plug-in: %w", err)
		}
	}
	return dir, nil
}

// FindJavac finds the javac of the JDK that java belongs to: beside java
// once its links are resolved (/usr/bin/java is a link into the JDK), else
// beside java as named, else javac on PATH.
func FindJavac(java string) (string, error) {
	name := "javac"
	if runtime.GOOS == "windows" {
		name = "javac.exe"
	}
	var dirs []string
	if real, err := filepath.EvalSymlinks(java); err == nil {
		dirs = append(dirs, filepath.Dir(real))
	}
	dirs = append(dirs, filepath.Dir(java))
	for _, d := range dirs {
		c := filepath.Join(d, name)
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return c, nil
		}
	}
	if c, err := exec.LookPath(name); err == nil {
		return c, nil
	}
	return "", unavailablef(ErrNoJavac, "no javac beside %s nor on PATH: TLC's distributed server needs a JDK, "+
		"not only a Java runtime, because tlcrun compiles a small plug-in for it against tla2tools.jar "+
		"(docs/engine.md, \"Past one machine\"); %s", java, JDKHint)
}
