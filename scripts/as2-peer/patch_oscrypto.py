"""Makes oscrypto 1.3.0 (the newest on PyPI) read OpenSSL version strings such as "OpenSSL 3.0.19".

Its version regex accepts one digit per component, so with OpenSSL 3.0.10 and later
`import oscrypto` (and pyas2lib) fails with "Error detecting the version of libcrypto". The fix
is on oscrypto's master branch but not released; this applies the same change (one or more
digits per component) to the installed copy. Idempotent; run with the environment's python.
"""
import importlib.util
import pathlib
import sys

OLD = "'\\\\b(\\\\d\\\\.\\\\d\\\\.\\\\d[a-z]*)\\\\b'"
NEW = "'\\\\b(\\\\d+\\\\.\\\\d+\\\\.\\\\d+[a-z]*)\\\\b'"


def main() -> int:
    spec = importlib.util.find_spec("oscrypto")
    if spec is None or spec.origin is None:
        print("patch_oscrypto: oscrypto is not installed", file=sys.stderr)
        return 1
    folder = pathlib.Path(spec.origin).parent / "_openssl"
    changed = 0
    for name in ("_libcrypto_cffi.py", "_libcrypto_ctypes.py"):
        path = folder / name
        text = path.read_text()
        if NEW in text:
            continue
        if OLD not in text:
            print(f"patch_oscrypto: {path} has neither the old nor the new version regex", file=sys.stderr)
            return 1
        path.write_text(text.replace(OLD, NEW))
        changed += 1
    print(f"patch_oscrypto: {changed} file(s) patched in {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
