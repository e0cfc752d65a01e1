#!/usr/bin/python3
"""trust.exp's Prometheus case.

  trust_prom.py write FILE   writes FILE as a session's `out' (runtime/protocol.h): metrics
                             records a script could state, good ones and hostile ones, then
                             a publication
  trust_prom.py check FILE   reads FILE, the textfile hwtap-run wrote, with the Prometheus
                             client library's parser and prints each sample (ASCII)
"""
import struct
import sys

METRICS, PUBLISH = 4, 5

RECORDS = [
    # taken
    b'# HELP good_total A \\\\ backslash and a\\nline feed\n# TYPE good_total counter\n',
    b'good_total{k="plain"} 1\n',
    b'good_total{k="a\\"b\\\\c\\nd"} 2\n',
    'good_total{k="\u00e9t\u00e9 \u2603"} 3\n'.encode(),
    b'good_total{k="ts",} 4 1700000000000\n',
    b'good_total{k="inf"} +Inf\n',
    # dropped
    b'good_total{k="x"} 1\nevil_total 666\n',
    b'good_total{k="\\t"} 5\n',
    b'good_total{k="\\u00E9"} 6\n',
    b'good_total{k="x\xff"} 7\n',
    b'bad-name 8\n',
    b'good_total{k="y",k="z"} 9\n',
    b'good_total{k="open} 10\n',
    b'# TYPE good_total gauge\n',
    b'good_total{k="v"} many\n',
    b'good_total{k="cut',
    b'# HELP x y\n# TYPE x counter\nevil_total 1\n',
    b'good_total{__name__="x"} 11\n',
    b'io_bytes{fd=7} 12\n',      # SystemTap's _map_unquoted macros with sprint
]


def write(path):
    with open(path, 'wb') as f:
        for r in RECORDS:
            f.write(struct.pack('<BBH', METRICS, 0, len(r)) + r)
        f.write(struct.pack('<BBH', PUBLISH, 0, 1) + b'\n')


def check(path):
    from prometheus_client.parser import text_string_to_metric_families
    with open(path, encoding='utf-8') as f:
        text = f.read()
    for family in text_string_to_metric_families(text):
        print(family.name, family.type, ascii(family.documentation))
        for s in family.samples:
            print(' ', s.name, ascii(sorted(s.labels.items())), s.value, s.timestamp)


if __name__ == '__main__':
    {'write': write, 'check': check}[sys.argv[1]](sys.argv[2])
