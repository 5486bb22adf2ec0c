#!/usr/bin/env python3
"""Fits an English evaluation network (src/eval/network.rs) to damka's self-play files and writes a DAMKANET file.

English's built-in network (src/eval/data/english.dnet) was fitted this way; docs/nets.md has
the commands. Needs numpy and torch (pip install numpy torch).

  python3 scripts/train_net.py prepare OUT.npz FILE...     # FEN;RESULT[;SCORE] lines -> arrays
  python3 scripts/train_net.py train OUT.npz NET.pt [--hidden 256] [--epochs 8] [--threads 2] [--lambda 0] [--init NET.dnet]
  python3 scripts/train_net.py export NET.pt NET.bin [--hidden 256] [--buckets 1] [--k 0.009083]

The held-out positions are the last 5% of the files given (the last games), as in
`damka tune patterns`, so its held-out loss and this one compare on the same positions;
`--held-out N` holds out the last N instead, so that a fit with more data in front keeps
the held-out positions of an earlier one.
`--lambda L` fits the label `(1 - L) * RESULT + L * sigmoid(K * SCORE)` on every fitted
position that has a search score (the blend Stockfish's NNUE trainer calls lambda, as
`damka tune patterns --lambda`), while the held-out positions keep their game results, so
held-out losses of fits with different L compare.
`--buckets B` (1 or 4; give the same to train and export) gives the layers after the first B
sets of weights, one for each range of piece counts (with 4: 1-6, 7-12, 13-18, 19-24 pieces),
as src/eval/network.rs chooses them; the first layer is shared.
`--init NET.dnet` starts the fit from the weights of a DAMKANET file (e.g. the built-in
src/eval/data/english.dnet) instead of random ones: a fine-tune, usually with a smaller `--lr`;
the best of its passes is written even when the starting network's held-out loss was lower.
K is the scale of the pattern fit on the same files (`# ... K = ...` in its log): the network's
logit divided by K is its score in centi-men.
"""
import argparse, math, struct, sys, time


def side(text):
    men = kings = 0
    for token in text.split(','):
        if token.startswith('K'):
            kings |= 1 << (int(token[1:]) - 1)
        elif token:
            men |= 1 << (int(token) - 1)
    return men, kings


def prepare(args):
    import numpy as np
    cols = {k: [] for k in ('wm', 'wk', 'bm', 'bk', 'stm', 'res', 'score')}
    for name in args.files:
        for line in open(name):
            if line.startswith('#') or ';' not in line:
                continue
            fields = line.strip().split(';')
            fen, result = fields[:2]
            mover, white, black = fen.split(':')
            wm, wk = side(white[1:])
            bm, bk = side(black[1:])
            for key, value in zip(('wm', 'wk', 'bm', 'bk'), (wm, wk, bm, bk)):
                cols[key].append(value)
            cols['stm'].append(1 if mover == 'W' else 0)
            cols['res'].append(float(result))
            # Centi-men from White's side; NaN where the file has no score.
            cols['score'].append(float(fields[2]) if len(fields) > 2 and fields[2] else math.nan)
    floats = ('res', 'score')
    np.savez(args.out, **{k: np.array(v, np.float32 if k in floats else np.uint32) for k, v in cols.items()})
    print(len(cols['wm']), 'positions')


# The largest weight after the first layer the engine reads (i16 at x8192, src/eval/network.rs).
LATER_WEIGHT_LIMIT = 32767 / 8192


def bucket_of(pieces, buckets):
    """The set of later-layer weights for a piece count, as src/eval/network.rs's `Network::head`."""
    return ((pieces - 1) * buckets // 24).clamp(0, buckets - 1)


def network(hidden, buckets=1):
    import torch.nn as nn, torch

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = nn.Linear(128, hidden)
            # Every bucket's outputs side by side; a position uses its bucket's slice.
            self.l2 = nn.Linear(hidden, 32 * buckets)
            self.l3 = nn.Linear(32, 32 * buckets)
            self.l4 = nn.Linear(32, buckets)

        def forward(self, x, bucket=None):
            rows = torch.arange(len(x))
            if bucket is None:
                bucket = torch.zeros(len(x), dtype=torch.int64)

            def pick(y, width):
                return y.view(len(x), buckets, width)[rows, bucket]
            x = torch.clamp(self.l1(x), 0, 1)
            x = torch.clamp(pick(self.l2(x), 32), 0, 1)
            x = torch.clamp(pick(self.l3(x), 32), 0, 1)
            return pick(self.l4(x), 1).squeeze(1)
    return Net()


def fnv1a(body):
    """The checksum that ends a DAMKANET file: FNV-1a 64, as src/eval/patterns.rs."""
    checksum = 0xcbf29ce484222325
    for byte in body:
        checksum = ((checksum ^ byte) * 0x100000001b3) & 0xffffffffffffffff
    return checksum


def load_dnet(path, hidden, buckets):
    """The state of `network(hidden, buckets)` held by a DAMKANET file that `export` wrote."""
    import numpy as np, torch
    data = open(path, 'rb').read()
    body, (checksum,) = data[:-8], struct.unpack('<Q', data[-8:])
    if body[:8] != b'DAMKANET' or checksum != fnv1a(body):
        sys.exit(f'{path}: not a DAMKANET file, or its checksum is wrong')
    version, inputs, first, second = struct.unpack('<HHHH', body[8:16])
    if version not in (1, 2):
        sys.exit(f'{path}: DAMKANET version {version}; this script reads versions 1 and 2')
    offset, file_buckets = 16, 1
    if version == 2:
        (file_buckets,) = struct.unpack('<H', body[16:18])
        offset = 18
    if (inputs, first, second, file_buckets) != (128, hidden, 32, buckets):
        sys.exit(f'{path}: shape {inputs}-{first}-{second}, {file_buckets} buckets; '
                 f'the fit has 128-{hidden}-32, {buckets}')
    floats = np.frombuffer(body, '<f4', offset=offset + 4)
    position = 0

    def take(*shape):
        nonlocal position
        size = math.prod(shape)
        out = torch.from_numpy(floats[position:position + size].copy()).reshape(shape)
        position += size
        return out
    state = {'l1.weight': take(128, hidden).T.contiguous(), 'l1.bias': take(hidden)}
    parts = {k: [] for k in ('l2.weight', 'l2.bias', 'l3.weight', 'l3.bias', 'l4.weight', 'l4.bias')}
    for _ in range(buckets):
        parts['l2.weight'].append(take(hidden, 32).T)
        parts['l2.bias'].append(take(32))
        parts['l3.weight'].append(take(32, 32).T)
        parts['l3.bias'].append(take(32))
        parts['l4.weight'].append(take(1, 32))
        parts['l4.bias'].append(take(1))
    state.update({k: torch.cat(v).contiguous() for k, v in parts.items()})
    return state


def turned(x):
    """Square s -> 31 - s (half a turn of the board), for 32-bit masks."""
    import numpy as np
    x = x.astype(np.uint64)
    out = np.zeros_like(x)
    for s in range(32):
        out |= ((x >> np.uint64(s)) & np.uint64(1)) << np.uint64(31 - s)
    return out.astype(np.uint32)


def train(args):
    import numpy as np, torch
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    d = np.load(args.data)
    n = len(d['wm'])
    held = args.held_out if args.held_out is not None else math.ceil(n * 0.05)
    cut = n - held
    white = d['stm'].astype(bool)
    # The side to move's view: own men, own kings, enemy men, enemy kings; Black sees the
    # board turned.
    planes = np.stack([
        np.where(white, d['wm'], turned(d['bm'])), np.where(white, d['wk'], turned(d['bk'])),
        np.where(white, d['bm'], turned(d['wm'])), np.where(white, d['bk'], turned(d['wk']))], 1)
    planes = torch.from_numpy(planes.astype(np.int64))
    results = d['res'].astype(np.float64)
    fitted_labels = results
    scored = np.zeros(n, bool)
    if args.lambda_ > 0:
        if 'score' not in d:
            sys.exit('--lambda needs data prepared with scores (prepare again with this script)')
        scored[:cut] = ~np.isnan(d['score'][:cut])
        # The search's expected result from White's side, on the scale of the fit's K.
        expected = 1.0 / (1.0 + np.exp(-args.k * np.nan_to_num(d['score'].astype(np.float64))))
        fitted_labels = np.where(scored, (1 - args.lambda_) * results + args.lambda_ * expected, results)
    labels = torch.from_numpy(np.where(white, fitted_labels, 1.0 - fitted_labels).astype(np.float32))
    bits = 1 << torch.arange(32, dtype=torch.int64)
    pieces = sum(np.bitwise_count(d[k]).astype(np.int64) for k in ('wm', 'wk', 'bm', 'bk'))
    buckets = bucket_of(torch.from_numpy(pieces), args.buckets)

    def inputs(idx):
        return ((planes[idx].unsqueeze(2) & bits) != 0).float().reshape(len(idx), 128)
    net = network(args.hidden, args.buckets)
    if args.init:
        net.load_state_dict(load_dnet(args.init, args.hidden, args.buckets))
    lr = args.lr
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    loss_fn = torch.nn.functional.binary_cross_entropy_with_logits

    def held_loss():
        with torch.no_grad():
            total = 0.0
            for a in range(cut, n, 65536):
                idx = torch.arange(a, min(n, a + 65536))
                total += loss_fn(net(inputs(idx), buckets[idx]), labels[idx], reduction='sum').item()
            return total / held
    print(f'{n} positions, {held} held out, hidden {args.hidden}, buckets {args.buckets}, lambda {args.lambda_} on '
          f'{int(scored.sum())} scored positions', flush=True)
    best = held_loss()
    print(f'start: held-out loss {best:.6f}', flush=True)
    if args.init:
        # A fine-tune moves the network to other labels, which the held-out results need not
        # favour: its passes compete with each other, not with the starting network.
        best = math.inf
    written = False
    for epoch in range(args.epochs):
        start = time.time()
        perm = torch.randperm(cut)
        total, batches = 0.0, 0
        for a in range(0, cut, args.batch):
            idx = perm[a:a + args.batch]
            loss = loss_fn(net(inputs(idx), buckets[idx]), labels[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            with torch.no_grad():
                # The engine holds the later layers' weights in 16 bits at x8192.
                for layer in (net.l2, net.l3, net.l4):
                    layer.weight.clamp_(-LATER_WEIGHT_LIMIT, LATER_WEIGHT_LIMIT)
            total += loss.item()
            batches += 1
        h = held_loss()
        print(f'epoch {epoch}: fitted loss {total / batches:.6f}, held-out loss {h:.6f}, lr {lr}, {time.time() - start:.0f} s', flush=True)
        if h < best:
            best = h
            torch.save(net.state_dict(), args.out)
            written = True
        else:
            lr /= 4
            for group in opt.param_groups:
                group['lr'] = lr
    if not written:
        sys.exit('no pass improved on the start (or --epochs 0): nothing written')
    print(f'best held-out loss {best:.6f}, written to {args.out}')


def export(args):
    import torch
    sd = torch.load(args.net)

    def floats(t):
        return t.detach().numpy().astype('<f4').tobytes()
    if args.buckets == 1:
        body = b'DAMKANET' + struct.pack('<HHHH', 1, 128, args.hidden, 32)
    else:
        body = b'DAMKANET' + struct.pack('<HHHHH', 2, 128, args.hidden, 32, args.buckets)
    body += struct.pack('<f', 1.0 / args.k)
    for layer in ('l2', 'l3', 'l4'):
        largest = sd[layer + '.weight'].abs().max().item()
        if largest > LATER_WEIGHT_LIMIT:
            sys.exit(f'{args.net}: a {layer} weight of {largest:.3f} is beyond the engine\'s '
                     f'{LATER_WEIGHT_LIMIT:.3f} (fitted by an older script?)')
    body += floats(sd['l1.weight'].T.contiguous()) + floats(sd['l1.bias'])
    for b in range(args.buckets):
        for layer in ('l2', 'l3'):
            body += floats(sd[layer + '.weight'][32 * b:32 * (b + 1)].T.contiguous())
            body += floats(sd[layer + '.bias'][32 * b:32 * (b + 1)])
        body += floats(sd['l4.weight'][b]) + floats(sd['l4.bias'][b:b + 1])
    open(args.out, 'wb').write(body + struct.pack('<Q', fnv1a(body)))
    print(len(body) + 8, 'bytes written to', args.out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest='command', required=True)
    p = sub.add_parser('prepare')
    p.add_argument('out')
    p.add_argument('files', nargs='+')
    p.set_defaults(run=prepare)
    p = sub.add_parser('train')
    p.add_argument('data')
    p.add_argument('out')
    p.add_argument('--hidden', type=int, default=256)
    p.add_argument('--epochs', type=int, default=8)
    p.add_argument('--threads', type=int, default=2)
    p.add_argument('--batch', type=int, default=8192)
    p.add_argument('--lr', type=float, default=1e-3)
    p.add_argument('--seed', type=int, default=1)
    p.add_argument('--buckets', type=int, default=1, choices=(1, 4))
    p.add_argument('--held-out', type=int, default=None,
                   help='positions held out at the end of the data (default: 5%%)')
    p.add_argument('--lambda', dest='lambda_', type=float, default=0.0,
                   help='share of the search score in the label of scored positions')
    p.add_argument('--k', type=float, default=0.009083,
                   help='the scale turning a score in centi-men into a logit')
    p.add_argument('--init', default=None, help='a DAMKANET file to start from (a fine-tune)')
    p.set_defaults(run=train)
    p = sub.add_parser('export')
    p.add_argument('net')
    p.add_argument('out')
    p.add_argument('--hidden', type=int, default=256)
    p.add_argument('--buckets', type=int, default=1, choices=(1, 4))
    p.add_argument('--k', type=float, default=0.009083)
    p.set_defaults(run=export)
    args = parser.parse_args()
    args.run(args)


if __name__ == '__main__':
    sys.exit(main())
