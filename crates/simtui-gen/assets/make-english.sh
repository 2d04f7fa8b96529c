#!/bin/sh
# Rebuilds english.txt.zst, the English prose `simtui gen --text english` and the
# explorer's demo build their documents from: Jane Austen's Pride and Prejudice,
# Persuasion and Northanger Abbey (public domain; the texts of Project Gutenberg), taken
# from Debian's r-cran-janeaustenr package (its R data; the package itself is MIT).
#
# One sentence a line (paragraphs' lines joined, spaces collapsed, split after . ! or ?
# before a capital, titles such as Mr. excepted), about 1.4 MB of text, so that the
# compressed file stays under 400 KB; titles, chapter and volume headings dropped; Gutenberg's _italics_ marks removed. Needs apt-get (download
# only, no root), dpkg-deb, python3 and zstd. Run from anywhere:
#   sh crates/simtui-gen/assets/make-english.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get download r-cran-janeaustenr >/dev/null
dpkg-deb -x r-cran-janeaustenr_*.deb pkg
python3 - pkg/usr/lib/R/site-library/janeaustenr/data/Rdata >english.txt <<'PY'
import gzip, re, struct, sys, zlib

class R:
    """Reads R's XDR serialization: the vectors, lists and attributes of a data package."""
    def __init__(self, b):
        self.b, self.i, self.refs = b, 0, []
    def int(self):
        v = struct.unpack('>i', self.b[self.i:self.i + 4])[0]
        self.i += 4
        return v
    def header(self):
        assert self.b[:2] == b'X\n', 'not XDR'
        self.i = 2
        version = self.int(); self.int(); self.int()
        if version == 3:
            n = self.int()
            self.i += n  # the native encoding's name
    def item(self):
        flags = self.int()
        t = flags & 0xff
        has_attr, has_tag = flags & (1 << 9), flags & (1 << 10)
        if t in (242, 251, 252, 253, 254):  # environments, missing, NULL
            return None
        if t == 255:  # a reference to a symbol read before
            return self.refs[(flags >> 8) - 1]
        if t == 1:  # a symbol
            s = self.item()
            self.refs.append(s)
            return s
        if t == 9:  # a string
            n = self.int()
            if n == -1:
                return None
            s = self.b[self.i:self.i + n].decode('utf-8')
            self.i += n
            return s
        if t in (2, 6):  # a pairlist: (tag, value) cells up to a NULL
            out = []
            while True:
                if has_attr:
                    self.item()
                tag = self.item() if has_tag else None
                out.append((tag, self.item()))
                flags = self.int()
                if flags & 0xff != t:
                    return out  # the NULL that ends it
                has_attr, has_tag = flags & (1 << 9), flags & (1 << 10)
        n = self.int()
        if t in (16, 19):  # character vector, list
            v = [self.item() for _ in range(n)]
        elif t in (10, 13):  # logical, integer
            v = list(struct.unpack('>%di' % n, self.b[self.i:self.i + 4 * n]))
            self.i += 4 * n
        elif t == 14:  # double
            v = list(struct.unpack('>%dd' % n, self.b[self.i:self.i + 8 * n]))
            self.i += 8 * n
        else:
            raise ValueError('R type %d' % t)
        return (v, dict(self.item())) if has_attr else v

def load(base):
    """The variables of an R lazy-load database (BASE.rdx, BASE.rdb) by name."""
    idx = R(gzip.decompress(open(base + '.rdx', 'rb').read()))
    idx.header()
    top, names = idx.item()
    fields = dict(zip(names['names'], top))
    places, attrs = fields['variables']
    rdb = open(base + '.rdb', 'rb').read()
    out = {}
    for name, (off, ln) in zip(attrs['names'], places):
        r = R(zlib.decompress(rdb[off + 4:off + ln]))  # 4 bytes of length, then zlib
        r.header()
        out[name] = r.item()
    return out

heading = re.compile(r'^(CHAPTER|Chapter|VOLUME|Volume)\b|^[^a-z]*$')
# A sentence ends at . ! or ? (closing quotes or brackets may follow), before a space and
# a capital (an opening quote or bracket may come first), unless the word is a title.
boundary = re.compile(r'([.!?]["\')]*) +(?=["\'(]*[A-Z])')
titles = {'Mr.', 'Mrs.', 'Dr.', 'St.', 'Messrs.', 'Col.', 'Capt.', 'Esq.', 'Lt.', 'Gen.'}

def sentences(p):
    out, start = [], 0
    for m in boundary.finditer(p):
        word = p[:m.end(1)].rsplit(' ', 1)[-1]
        if word.lstrip('"\'(') in titles:
            continue
        out.append(p[start:m.end(1)])
        start = m.end()
    out.append(p[start:])
    return [s for s in out if s.strip()]

# Under ~1.4 MB of text, so the compressed asset stays under 400 KB: all of the first two
# novels, the beginning of the third.
LIMIT = 1_400_000
total = 0
books = load(sys.argv[1])
for name in ('prideprejudice', 'persuasion', 'northangerabbey'):
    lines = books[name]
    paragraphs, cur = [], []
    for line in lines + ['']:
        if line.strip():
            cur.append(line.strip())
        elif cur:
            paragraphs.append(' '.join(cur))
            cur = []
    for p in paragraphs:
        p = re.sub(r'\s+', ' ', p.replace('_', '')).strip()
        # Titles, headings, and the lines before the first chapter have no sentence.
        if heading.match(p) or len(p.split()) < 4:
            continue
        for s in sentences(p):
            total += len(s.encode()) + 1
            if total > LIMIT:
                sys.exit(0)
            print(s)
PY
zstd -q -19 --force english.txt -o "$here/english.txt.zst"
wc -c english.txt "$here/english.txt.zst"
