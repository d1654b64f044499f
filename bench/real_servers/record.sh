#!/usr/bin/env bash
# Install the real MCP servers pinned in servers.txt and record their tools/list.
#
#   bench/real_servers/record.sh [OUT]      (OUT defaults to <repo>/target/real-servers)
#
# OUT/pkgs/<server>  one npm project per npm server
# OUT/venv, OUT/venv-<n>   the PyPI servers (see `+venv=` in servers.txt)
# OUT/sandbox, OUT/home    scratch directory for directory arguments; HOME of the servers
# OUT/servers.json   the MCP client config that is recorded
# OUT/snapshots      one <server>.json per server that answered
# OUT/logs           install logs, server stderr (<server>.log), record.out
#
# Re-runnable: installs already done (same pinned version) are skipped; the snapshots
# are recorded afresh each time. Environment: JOBS (parallel installs, default 4),
# TIMEOUT (seconds per server, default 90), MCP_SCAN (binary, default the release build).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${1:-$repo/target/real-servers}
list=$here/servers.txt
jobs=${JOBS:-4}
timeout=${TIMEOUT:-90}
token=dummy-placeholder-token-0000
mcp_scan=${MCP_SCAN:-$repo/target/release/mcp-scan}

for tool in node npm python3 git; do
    command -v "$tool" > /dev/null || { echo "record.sh: needs \`$tool\` on PATH" >&2; exit 2; }
done
if [[ ! -x $mcp_scan ]]; then
    echo "record.sh: building the release binary" >&2
    (cd "$repo" && cargo build --release)
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
mkdir -p "$out/pkgs" "$out/logs" "$out/home" "$out/sandbox/arxiv" "$out/snapshots"
start=$SECONDS

# servers.txt is parsed in one place, this Python helper:
#   plan    prints the installs: `npm<TAB>server<TAB>package<TAB>version<TAB>stamp`
#           and `venv<TAB>dir<TAB>spec spec ...`
#   config  writes OUT/servers.json for the installs that succeeded
read -r -d '' helper << 'PY' || true
import json, os, re, shlex, sys

mode, listing, out, token = sys.argv[1:5]
sandbox = os.path.join(out, "sandbox")
ENV = re.compile(r"[A-Z][A-Z0-9_]*=")

def fill(s):
    return s.replace("{TOKEN}", token).replace("{SANDBOX}", sandbox)

def entries():
    names = set()
    with open(listing, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            toks = shlex.split(line, comments=True)
            if not toks:
                continue
            where = f"{listing}:{n}"
            if len(toks) < 3 or toks[0] not in ("npm", "pypi"):
                sys.exit(f"{where}: expected `npm PKG@VER NAME ...` or `pypi PKG==VER NAME ENTRY ...`")
            kind, spec, name, rest = toks[0], toks[1], toks[2], toks[3:]
            if name in names or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):
                sys.exit(f"{where}: bad or repeated server name `{name}`")
            names.add(name)
            e = {"kind": kind, "name": name, "args": [], "env": {}, "opts": {}}
            if kind == "npm":
                pkg, sep, ver = spec.rpartition("@")
                if not sep or not pkg or not ver:
                    sys.exit(f"{where}: `{spec}` is not PACKAGE@VERSION")
                e["pkg"], e["ver"] = pkg, ver
            else:
                pkg, sep, ver = spec.partition("==")
                if not sep or not rest:
                    sys.exit(f"{where}: expected `pypi PACKAGE==VERSION NAME ENTRY ...`")
                e["pkg"], e["ver"], e["entry"], rest = pkg, ver, rest[0], rest[1:]
            for t in rest:
                if t.startswith("+"):
                    k, _, v = t[1:].partition("=")
                    if k not in ("bin", "scripts", "venv"):
                        sys.exit(f"{where}: unknown option `{t}`")
                    e["opts"][k] = v
                elif ENV.match(t):
                    k, _, v = t.partition("=")
                    e["env"][k] = fill(v)
                else:
                    e["args"].append(fill(t))
            yield e

def venv_dir(e):
    v = e["opts"].get("venv")
    return os.path.join(out, f"venv-{v}" if v else "venv")

def npm_stamp(e):
    return f"{e['pkg']}@{e['ver']}" + (" +scripts" if "scripts" in e["opts"] else "")

def stamp_ok(path, want):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip() == want
    except OSError:
        return False

if mode == "plan":
    venvs = {}
    for e in entries():
        if e["kind"] == "npm":
            print("npm", e["name"], e["pkg"], e["ver"], npm_stamp(e), sep="\t")
        else:
            venvs.setdefault(venv_dir(e), []).append(f"{e['pkg']}=={e['ver']}")
    for d, specs in venvs.items():
        print("venv", d, " ".join(sorted(specs)), sep="\t")
elif mode == "config":
    servers, missing = {}, []
    venv_specs = {}
    all_entries = list(entries())
    for e in all_entries:
        if e["kind"] == "pypi":
            venv_specs.setdefault(venv_dir(e), []).append(f"{e['pkg']}=={e['ver']}")
    for e in all_entries:
        if e["kind"] == "npm":
            proj = os.path.join(out, "pkgs", e["name"])
            if not stamp_ok(os.path.join(proj, ".installed"), npm_stamp(e)):
                missing.append(e["name"])
                continue
            root = os.path.join(proj, "node_modules", e["pkg"])
            with open(os.path.join(root, "package.json"), encoding="utf-8") as f:
                b = json.load(f).get("bin")
            if isinstance(b, dict):
                b = b[e["opts"]["bin"]] if e["opts"].get("bin") else next(iter(b.values()))
            if not b:
                sys.exit(f"{e['pkg']}: no `bin` in package.json")
            cmd, args = "node", [os.path.normpath(os.path.join(root, b))]
        else:
            d = venv_dir(e)
            if not stamp_ok(os.path.join(d, ".installed"), " ".join(sorted(venv_specs[d]))):
                missing.append(e["name"])
                continue
            cmd = os.path.join(d, "bin", "python")
            entry = e["entry"]
            if entry.startswith("module:"):
                args = ["-m", entry[len("module:"):]]
            else:
                script = os.path.join(d, "bin", entry)
                if not os.path.isfile(script):
                    sys.exit(f"{e['pkg']}: no console script `{entry}` in {d}/bin")
                args = [script]
        s = {"command": cmd, "args": args + e["args"]}
        if e["env"]:
            s["env"] = e["env"]
        servers[e["name"]] = s
    with open(os.path.join(out, "servers.json"), "w", encoding="utf-8") as f:
        json.dump({"mcpServers": servers}, f, indent=2)
        f.write("\n")
    if missing:
        print(f"not installed, left out of servers.json: {' '.join(missing)}", file=sys.stderr)
    print(len(servers))
elif mode == "count":
    d = os.path.join(out, "snapshots")
    files = sorted(x for x in os.listdir(d) if x.endswith(".json"))
    tools = 0
    for x in files:
        with open(os.path.join(d, x), encoding="utf-8") as f:
            tools += len(json.load(f).get("tools") or [])
    print(len(files), tools)
PY

py() { python3 -c "$helper" "$1" "$list" "$out" "$token"; }

install_npm() { # server package version stamp
    local dir=$out/pkgs/$1 want=$2@$3 log=$out/logs/install-$1.log
    local flags=(--no-audit --no-fund --save-exact)
    [[ $4 == *" +scripts" ]] || flags+=(--ignore-scripts)
    # A fresh tree: npm would not rerun install scripts for packages already there.
    rm -rf "$dir/.installed" "$dir/node_modules" "$dir/package-lock.json"
    mkdir -p "$dir"
    [[ -f $dir/package.json ]] || printf '{"name": "wrap-%s", "private": true}\n' "$1" > "$dir/package.json"
    if (cd "$dir" && npm install "${flags[@]}" "$want") > "$log" 2>&1; then
        printf '%s\n' "$4" > "$dir/.installed"
        echo "installed $want"
    else
        echo "FAILED to install $want (see $log)" >&2
    fi
}

install_venv() { # dir specs
    local dir=$1 log=$out/logs/install-${1##*/}.log
    local -a specs
    read -r -a specs <<< "$2"
    rm -f "$dir/.installed"
    [[ -x $dir/bin/python ]] || python3 -m venv "$dir"
    if "$dir/bin/python" -m pip install --disable-pip-version-check "${specs[@]}" > "$log" 2>&1; then
        printf '%s\n' "$2" > "$dir/.installed"
        echo "installed ${#specs[@]} PyPI packages into $dir"
    else
        echo "FAILED to install into $dir (see $log)" >&2
    fi
}

stamp_is() { [[ -f $1 ]] && [[ $(< "$1") == "$2" ]]; }

# Installs, JOBS at a time. A failed install only leaves its servers out.
export PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
plan=$(py plan)
skipped=0
while IFS=$'\t' read -r kind a b c d; do
    if [[ $kind == npm ]]; then
        if stamp_is "$out/pkgs/$a/.installed" "$d"; then skipped=$((skipped + 1)); continue; fi
        install_npm "$a" "$b" "$c" "$d" &
    else
        if stamp_is "$a/.installed" "$b"; then skipped=$((skipped + 1)); continue; fi
        install_venv "$a" "$b" &
    fi
    while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
done <<< "$plan"
wait
((skipped == 0)) || echo "$skipped installs already done, skipped"

# Scratch files some servers want to find (all fake).
if [[ ! -d $out/sandbox/repo/.git ]]; then
    git init -q "$out/sandbox/repo"
fi
printf 'hi\n' > "$out/sandbox/readme.txt"
: > "$out/sandbox/npx.db"
printf '%s\n' '{"installed":{"client_id":"placeholder.apps.googleusercontent.com","client_secret":"placeholder","redirect_uris":["http://localhost"]}}' \
    > "$out/sandbox/gcp-oauth.keys.json"
printf '%s\n' '{"access_token":"ya29.placeholder","refresh_token":"placeholder","token_type":"Bearer","expiry_date":9999999999999}' \
    > "$out/sandbox/gdrive-credentials.json"

configured=$(py config)
echo "recording $configured servers (timeout ${timeout}s each)"

# Record with a clean environment: the caller's tokens must not reach the servers.
keep=(PATH="$PATH" HOME="$out/home" LANG=C.UTF-8 TMPDIR="${TMPDIR:-/tmp}")
for name in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY \
    NODE_EXTRA_CA_CERTS SSL_CERT_FILE SSL_CERT_DIR REQUESTS_CA_BUNDLE CURL_CA_BUNDLE; do
    if [[ -n ${!name-} ]]; then keep+=("$name=${!name}"); fi
done
rm -rf "$out/snapshots"
mkdir -p "$out/snapshots"
rc=0
env -i "${keep[@]}" "$mcp_scan" --no-config --color never record "$out/servers.json" \
    --out "$out/snapshots" --timeout "$timeout" > "$out/logs/record.out" 2>&1 || rc=$?
grep -v '^recording ' "$out/logs/record.out" || true
shopt -s nullglob
for log in "$out/snapshots"/*.log; do mv -f "$log" "$out/logs/"; done

read -r servers tools <<< "$(py count)"
echo
echo "configured: $configured servers; recorded: $servers servers, $tools tools (mcp-scan record exit $rc)"
echo "snapshots:  $out/snapshots    logs: $out/logs"
echo "took $((SECONDS - start))s"
