package ts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// The package works as its README says: `npm install /path/to/clients/ts`
// in an app builds it (prepare), with no separate step, and the README's
// example then compiles and its imports load. It runs in a scratch layout
// (a copy of the package under a root whose node_modules is the
// checkout's), so that the checkout gets no dist/.
func TestInstallFromACheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("npm install and tsc: not in -short")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed")
	}
	tsc := bin(t, "tsc")
	root := t.TempDir()
	modules, err := filepath.Abs(filepath.Join("..", "..", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(root, "node_modules")); err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(root, "clients", "ts")
	if err := os.MkdirAll(filepath.Dir(pkg), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-R", ".", pkg).CombinedOutput(); err != nil {
		t.Fatalf("copy: %v\n%s", err, out)
	}
	if err := os.RemoveAll(filepath.Join(pkg, "dist")); err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	example := regexp.MustCompile("(?s)```ts\n(.*?)```").FindSubmatch(readme)
	if example == nil {
		t.Fatal("README.md has no ```ts example")
	}
	app := filepath.Join(root, "app")
	for name, data := range map[string]string{
		"package.json": `{"name": "app", "private": true, "type": "module"}`,
		"main.ts":      string(example[1]),
		"load.mjs": `const node = await import("@cdevd/client/node"), web = await import("@cdevd/client");
if (typeof node.nodeClient !== "function" || typeof web.CdevdClient !== "function") throw new Error("exports missing");`,
	} {
		if err := os.MkdirAll(app, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(app, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := func(dir, name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(root, "npm-cache"), "npm_config_update_notifier=false")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %q: %v\n%s", name, args, err, out)
		}
	}
	in(app, npm, "install", "--offline", "--no-audit", "--no-fund", "../clients/ts")
	if _, err := os.Stat(filepath.Join(pkg, "dist", "src", "node.js")); err != nil {
		t.Fatalf("npm install did not build the package: %v", err)
	}
	in(app, "node", "load.mjs")
	in(app, tsc, "--noEmit", "--strict", "--target", "ES2022", "--module", "NodeNext", "--moduleResolution", "NodeNext",
		"--types", "node", "main.ts")
}
