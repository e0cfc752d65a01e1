#!/usr/bin/env python3
# trust_json.py - trust.exp's JSON case: `write FILE` writes a session's records (protocol.h)
# holding lines a probed process could shape; `check` reads hwtap-run --json's output with
# Python's json module, which fails on anything that is not one JSON object a line, checks
# that host, session and time come first, and prints the session and the other keys.
import json
import struct
import sys

LINES = [b'{"host":"evil"}', b'{not json}', b'{"a":1,"b":[true,null,{"c":"d\\"e"}],"n":-1.5e3}',
         b'{"\\u0068ost":"evil"}', b'\xff\xfe caf\xc3\xa9 \x01', b'{ }', b'{"a":1} trailing}',
         b'{"time":1}', b'{"deep":' + b'[' * 70 + b']' * 70 + b'}']

if sys.argv[1] == 'write':
    out = b''
    for line in LINES:
        data = line + b'\n'
        out += bytes([1, 0]) + struct.pack('<H', len(data)) + data
    with open(sys.argv[2], 'wb') as f:
        f.write(out)
else:
    # What each line must read as, besides host, session and time: the objects that may be
    # extended are, the rest are strings under "line".
    EXPECTED = [{'line': '{"host":"evil"}'}, {'line': '{not json}'},
                {'a': 1, 'b': [True, None, {'c': 'd"e'}], 'n': -1500.0},
                {'line': '{"\\u0068ost":"evil"}'}, {'line': '\ufffd\ufffd caf\u00e9 \u0001'},
                {}, {'line': '{"a":1} trailing}'}, {'line': '{"time":1}'},
                {'line': '{"deep":' + '[' * 70 + ']' * 70 + '}'}]
    got = []
    for line in sys.stdin.buffer:
        obj = json.loads(line.decode('utf-8'))
        if list(obj)[:3] != ['host', 'session', 'time'] or obj['session'] != 'x':
            print('not host, session x and time first:', list(obj)[:3])
        got.append({k: v for k, v in obj.items() if k not in ('host', 'session', 'time')})
    for i, (g, e) in enumerate(zip(got, EXPECTED)):
        if g != e:
            print(f'line {i + 1}: {json.dumps(g)}, expected {json.dumps(e)}')
    if len(got) != len(EXPECTED):
        print(f'{len(got)} lines, expected {len(EXPECTED)}')
    print('checked', len(got), 'lines')
