package tlc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// ReleaseURL is where TLC's releases publish tla2tools.jar; %s is the
// version without its "v" (e.g. 1.7.4).
const ReleaseURL = "https://github.com/tlaplus/tlaplus/releases/download/v%s/tla2tools.jar"

// ErrChecksum says a download did not have the pinned SHA-256.
var ErrChecksum = errors.New("tlc: checksum mismatch")

// InstallOptions say which TLC to install and where.
type InstallOptions struct {
	// Version is the release, e.g. "1.7.4" (a leading "v" is dropped).
	Version string
	// SHA256 is the jar's expected checksum in hex: the pin.
	SHA256 string
	// URL is where to download from; "" means ReleaseURL for Version.
	URL string
	// Dest is the jar's path; "" means DefaultJar.
	Dest string
	// Client downloads; nil means http.DefaultClient.
	Client *http.Client
}

var (
	versionRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+)*([-.][0-9A-Za-z.]+)?$`)
	sha256RE  = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)
)

// Validate checks the options before anything is downloaded.
func (o InstallOptions) Validate() error {
	v := strings.TrimPrefix(o.Version, "v")
	switch {
	case o.Version == "":
		return errors.New("no version: say which TLC release to install, e.g. --release 1.7.4")
	case !versionRE.MatchString(v):
		return fmt.Errorf("version %q: want a release number such as 1.7.4", o.Version)
	case o.SHA256 == "":
		return errors.New("no checksum: give the SHA-256 of the release's tla2tools.jar (--sha256), which pins what is installed")
	case !sha256RE.MatchString(o.SHA256):
		return fmt.Errorf("checksum %q: want 64 hexadecimal digits (a SHA-256)", o.SHA256)
	}
	return nil
}

// Install downloads tla2tools.jar, checks its SHA-256 and that it holds
// TLC, and only then moves it into place: a mismatch leaves nothing
// behind. It returns the jar's path.
func Install(ctx context.Context, o InstallOptions) (string, error) {
	if err := o.Validate(); err != nil {
		return "", err
	}
	url := o.URL
	if url == "" {
		url = fmt.Sprintf(ReleaseURL, strings.TrimPrefix(o.Version, "v"))
	}
	dest := o.Dest
	if dest == "" {
		var err error
		if dest, err = DefaultJar(); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".tla2tools-*.jar")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	got, err := download(ctx, o.Client, url, tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	if !strings.EqualFold(got, o.SHA256) {
		return "", fmt.Errorf("%w: %s has SHA-256 %s, but --sha256 says %s; nothing was installed", ErrChecksum, url, got, strings.ToLower(o.SHA256))
	}
	if _, err := CheckJar(tmp.Name()); err != nil {
		return "", fmt.Errorf("%s has the pinned checksum but is not TLC's jar: %w", url, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), dest); err != nil {
		return "", err
	}
	return dest, nil
}

// download writes url's body to w and returns its SHA-256 in hex.
func download(ctx context.Context, client *http.Client, url string, w io.Writer) (string, error) {
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", fmt.Errorf("download %s: %w", url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		// The client's error repeats the URL: keep what it wraps.
		var uerr *neturl.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return "", fmt.Errorf("download %s: %w%s", url, err, offlineHint(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		hint := ""
		if resp.StatusCode == http.StatusNotFound {
			hint = " (is the version a TLC release? see https://github.com/tlaplus/tlaplus/releases)"
		}
		return "", fmt.Errorf("download %s: %s%s", url, resp.Status, hint)
	}
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(w, h), resp.Body); err != nil {
		return "", fmt.Errorf("download %s: %w%s", url, err, offlineHint(err))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// offlineHint explains a network error: most often the machine has no
// way to the server.
func offlineHint(err error) string {
	var nerr net.Error
	var dns *net.DNSError
	var op *net.OpError
	if errors.As(err, &dns) || errors.As(err, &op) || errors.As(err, &nerr) {
		return "\nThe server cannot be reached (is this machine offline?). Download tla2tools.jar where there is a network, " +
			"check its SHA-256, and give its path with --jar or " + JarEnv + "."
	}
	return ""
}
