# SPDX-License-Identifier: GPL-3.0-or-later
# Provenance: the Stratex team's independent Python reference of Galvatron main's strategy search,
# copied unchanged (apart from this header) from the team's shared tools folder
# (tools/galvatron-oracle/galvatron_oracle.py there). It was written from the rules restated in
# docs/galvatron-search.md, not from Galvatron's code, and contains no upstream code. Upstream it
# models: PKU-DAIR/Hetu-Galvatron @ cea12ffb146a220643c8f99f9cb84294755d29f8 (Apache-2.0).
# How tests/core/galvatron/oracle_runs.h is made from it: docs/oracle.md.
# Independent re-implementation of the Galvatron main search, written from the spec (not from the code),
# used to validate that the spec is complete and bit-exact. Python + numpy; DP vectorised.
import json, math, sys, argparse
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument('--mem', type=int, default=36)
ap.add_argument('--bsz', type=int, default=16)
ap.add_argument('--nodes', type=int, default=1)
ap.add_argument('--gpus', type=int, default=8)
ap.add_argument('--time_mode', default='batch')
ap.add_argument('--fit', default='scipy', choices=['scipy', 'ols'])
ap.add_argument('--max_pp', type=int, default=8)
ap.add_argument('--max_tp', type=int, default=8)
ap.add_argument('--max_sp', type=int, default=8)
ap.add_argument('--prof', required=True, help='directory with the llama2-7b profiles and a hw/ subdirectory of hardware files')
ap.add_argument('--pipe', default='pipedream_flush')
ap.add_argument('--dpt', default='zero2')
ap.add_argument('--noasync', action='store_true')
ap.add_argument('--sum', default='pairwise', choices=['pairwise', 'seq'])
A = ap.parse_args()

SEQ, HID, NL = 2048, 4096, 32
WORLD = A.nodes * A.gpus
MIXED = True  # bf16
SEQPAR = True
GMB = True
PIPE = A.pipe
DEFAULT_DP = A.dpt
ASYNC = not A.noasync
CTX = 1024
COSTCOE = 1.0
BCT_FCT = 2


def pw_sum(a):
    a = [float(x) for x in a]
    if A.sum == 'seq':
        s = 0.0
        for x in a:
            s += x
        return s
    def rec(a):
        n = len(a)
        if n < 8:
            res = 0.0
            for x in a:
                res += x
            return res
        if n <= 128:
            r = list(a[:8]); i = 8
            while i < n - (n % 8):
                for j in range(8):
                    r[j] += a[i + j]
                i += 8
            res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
            while i < n:
                res += a[i]; i += 1
            return res
        n2 = n // 2; n2 -= n2 % 8
        return rec(a[:n2]) + rec(a[n2:])
    return 0.0 + rec(a)


def linfit(x, y):
    if A.fit == 'scipy':
        from scipy.optimize import curve_fit
        p, _ = curve_fit(lambda x, m, c: m * x + c, x, y)
        return float(p[0]), float(p[1])
    X = np.array(x, float); Y = np.array(y, float)
    n = len(X)
    m = (n * (X * Y).sum() - X.sum() * Y.sum()) / (n * (X * X).sum() - X.sum() ** 2)
    return float(m), float((Y.sum() - m * X.sum()) / n)

# ---------------- inputs ----------------
tc = json.load(open(f'{A.prof}/computation_profiling_bf16_llama2-7b_all.json'))
if A.time_mode == 'batch':
    def fit_pref(pref):
        xs, ys = [], []
        for k, t in tc.items():
            if k.startswith(pref) and ('_seq%d' % SEQ) in k:
                b = int(k.split('_')[-2][3:]); xs.append(b); ys.append(t * b)
        return linfit(xs, ys)
    LAYER_T = ('lin',) + fit_pref('layertype_0_')
    OTHER_T = ('lin',) + fit_pref('layertype_other_')
else:
    LAYER_T = ('const', [t for k, t in tc.items() if k.startswith('layertype_0_')][0])
    OTHER_T = ('const', [t for k, t in tc.items() if k.startswith('layertype_other_')][0])

def intkeys(d):
    if isinstance(d, dict):
        return {(int(k) if isinstance(k, str) and k.isdigit() else k): intkeys(v) for k, v in d.items()}
    return d
mc = intkeys(json.load(open(f'{A.prof}/memory_profiling_bf16_llama2-7b_all.json')))
P = mc['layertype_0_sp'][SEQ]['parameter_size']
ACT = mc['layertype_0_sp'][SEQ]['tp_activation_per_bsz_dict']
OFF = mc['other_memory_pp_off_sp'][SEQ]
FIRST = mc['other_memory_pp_on_first_sp'][SEQ]
LAST = mc['other_memory_pp_on_last_sp'][SEQ]

hw = f'{A.prof}/hw'
ar = json.load(open(f'{hw}/allreduce_bandwidth_{A.nodes}nodes_{A.gpus}gpus_per_node.json'))
COE = {}
COE['%d' % WORLD] = COE['%d_1' % WORLD] = COE['%d_0' % WORLD] = 1.0 / ar['allreduce_size_%d_consec_1' % WORLD]
g = WORLD // 2
while g >= 2:
    COE['%d_0' % g] = 1.0 / ar['allreduce_size_%d_consec_0' % g]
    COE['%d_1' % g] = 1.0 / ar['allreduce_size_%d_consec_1' % g]
    g //= 2
COE['1'] = COE['1_1'] = COE['1_0'] = 0
P2P = {int(k.split('_')[-1]): 1.0 / v for k, v in json.load(open(f'{hw}/p2p_bandwidth_{A.nodes}nodes_{A.gpus}gpus_per_node.json')).items() if 'pp_size_' in k}
OVL = json.load(open(f'{hw}/overlap_coefficient.json'))['overlap_coe']
spt = json.load(open(f'{hw}/sp_time_{A.nodes}nodes_{A.gpus}gpus_per_node.json'))
def lat_table(prefix, factor):
    t = {}
    for k, v in spt.items():
        if k.startswith(prefix):
            parts = k.split('_'); gsz = int(parts[-3]); mb = int(parts[-2][:-2])
            t.setdefault(gsz, {})[mb] = v * factor
    out = {}
    for gsz, d in t.items():
        out[gsz] = (d, linfit(list(d.keys()), list(d.values())))
    return out
AG = lat_table('allreduce_size', 0.5)
A2A = lat_table('all2all_size', 1)
def lat(table, gsz, mb):
    d, (m, c) = table[gsz]
    if mb == int(mb) and int(mb) in d:
        return d[int(mb)]
    return m * mb + c

# ---------------- strategies ----------------
DT = {'ddp': 0, 'zero2': 1, 'zero3': 2}
degs = []
x = 1
while x <= WORLD:
    degs.append(x); x *= 2
layers = set()
for pp in degs:
    if pp > NL or pp > A.max_pp: continue
    for kind in ('tp', 'sp'):
        for t in degs:
            if kind == 'tp' and t > A.max_tp: continue
            if kind == 'sp' and t > A.max_sp: continue
            if t * pp > WORLD: continue
            cp = 1
            dp = WORLD // pp // t
            dts = ['ddp'] if dp == 1 else (['ddp', 'zero3'] if DEFAULT_DP == 'ddp' else ['zero2', 'zero3'])
            for dt in dts:
                for ck in (0, 1):
                    tp = t if kind == 'tp' else 1
                    sp = t if kind == 'sp' else 1
                    layers.add((pp, tp, sp, cp, dp, DT[dt], ck))
LAYERS = sorted(layers)
EMBS = sorted(set(s[:6] for s in LAYERS))

def tpsp(s): return max(s[1], s[2])
def sdp(s): return s[4] * s[2] * s[3]

def layer_time(s, gbsz, chunks):
    pp, tp, sp, cp, dp, dt, ck = s
    ts = max(tp, sp); sd = dp * sp * cp
    lbsz = gbsz // chunks // dp
    if LAYER_T[0] == 'lin':
        fct = (LAYER_T[1] * (lbsz / ts) + LAYER_T[2]) * NL
    else:
        fct = LAYER_T[1] * lbsz / ts * NL
    bct = fct * BCT_FCT
    if ck: bct += fct
    dpm = 2 * (sd - 1) * ((P / tp) / sd) * NL
    if MIXED: dpm /= 2
    ag = dpm * 0.5
    dc = COE[f'{sd}_0' if tp != 1 else f'{sd}_1']
    dco = dc * OVL
    if ts == 1:
        tpc = 0
    else:
        if tp == 1:
            n = 4 * NL
            if ck: n *= 1.5
            tab, gs = A2A, sp
        else:
            n = 6 * NL
            if ck: n *= 1.5
            tab, gs = AG, tp
        msg = lbsz * SEQ * HID * (2 if MIXED else 4) / 1024 / 1024
        tpc = lat(tab, gs, msg) * n
    out = []
    for sync in (1, 0):
        def ovl(m, b):
            a1 = m * dco; b1 = b * OVL
            if a1 > b1: return b1, (m - b1 / dco) * dc
            if a1 < b1: return a1, b - a1 / OVL
            return b1, 0
        if ts == 1 and dp > 1:
            o, r_ = ovl(dpm * sync, bct); res = fct + o + r_ + 0
        elif dp == 1 and ts > 1:
            res = fct + bct + tpc
        elif dp == 1 and ts == 1:
            res = fct + bct
        else:
            o, r_ = ovl(dpm * sync, bct); res = fct + o + r_ + tpc + 0
        if dt == 2:
            res = res + ag * dc
        if pp > 1:
            p2p = pp * 2 * lbsz * SEQ * HID * 4 / 1024 / 1024
            if MIXED: p2p = p2p / 2
            res = res + p2p * P2P[pp]
        res = res * (0.001 * COSTCOE)
        res = res / NL
        out.append(res)
    return out[0], out[1]

def ratios(chunks):
    if chunks == 1:
        z2 = lambda d: (7/8 * (1/d + 0.003) + 1/8) if MIXED else (3/4 * (1/d + 0.003) + 1/4)
        z3 = lambda d: (1/d + 0.003)
    elif ASYNC:
        z2 = lambda d: (6/8 * (1/d + 0.003) + 2/8) if MIXED else (2/4 * (1/d + 0.003) + 2/4)
        z3 = lambda d: (7/8 * (1/d + 0.003) + 1/8) if MIXED else (3/4 * (1/d + 0.003) + 1/4)
    else:
        z2 = lambda d: ((7/8 * (1/d + 0.003) + 1/8) * 5 / 4) if MIXED else (3/4 * (1/d + 0.003) + 1/4)
        z3 = lambda d: (1/d + 0.003) * 5 / 4
    return z2, z3

def layer_mem(s, gbsz, chunks, stage):
    pp, tp, sp, cp, dp, dt, ck = s
    ts = max(tp, sp); sd = dp * sp * cp
    lbsz = gbsz // chunks // dp
    cum = 1 if pp == 1 else ((pp - stage) if PIPE == 'pipedream_flush' else chunks)
    clb = cum * lbsz
    z2, z3 = ratios(chunks)
    ms = 4 * (P / tp)
    if dt == 2: ms *= z3(sd)
    elif dt == 1: ms *= z2(sd)
    if ck:
        act = ACT['checkpoint'] * clb
        if sp > 1 or (tp > 1 and SEQPAR): act /= ts
    else:
        act = ACT[ts] * clb
    return ms + act

def emb_time(e, gbsz, chunks):
    pp, tp, sp, cp, dp, dt = e
    ts = max(tp, sp); sd = dp * sp * cp
    lbsz = gbsz // chunks // dp
    if OTHER_T[0] == 'lin':
        f = OTHER_T[1] * (lbsz / ts / cp) + OTHER_T[2]
    else:
        f = OTHER_T[1] * lbsz / ts / cp
    fct = [0] * pp
    if pp == 1: fct[0] = f
    else: fct[0] = f / 2; fct[-1] = f / 2
    dpc = COE[f'{sd}_0' if tp != 1 else f'{sd}_1'] * (sd - 1) / sd
    fac = 0.5 if MIXED else 1.0
    msg = [0] * pp
    if pp == 1:
        msg[0] = OFF['model_states'][tp] / 4 * fac
    else:
        msg[0] = FIRST['model_states'][tp] / 4 * fac
        msg[-1] = LAST['model_states'][tp] / 4 * fac
    ff, bf = (0.5, 1.0) if dt == 2 else (0.0, 0.5)
    tpt = 0
    if ts > 1 and tp > 1:
        tpt = lat(AG, tp, lbsz * SEQ * HID * (2 if MIXED else 4) / 1024 / 1024)
    tps = [0] * pp
    if pp == 1: tps[0] = tpt + tpt
    else: tps[0] = tpt; tps[-1] = tpt
    def ov(fc, fp, bc, bp, t):
        fp = fp * OVL; bp = bp * OVL
        ft = fc + (fp - fc) / OVL if fp > fc else fc
        bt = bc + (bp - bc) / OVL if bp > bc else bc
        return ft + bt + t
    w = [0] * pp; n = [0] * pp
    idx = [0] if pp == 1 else [0, -1]
    for i in idx:
        w[i] = 0.001 * ov(msg[i] * dpc * ff, fct[i], msg[i] * dpc * bf, fct[i] * BCT_FCT, tps[i])
        n[i] = 0.001 * ov(msg[i] * dpc * ff, fct[i], msg[i] * dpc * (bf - 0.5), fct[i] * BCT_FCT, tps[i])
    return w, n

def emb_mem(e, gbsz, chunks):
    pp, tp, sp, cp, dp, dt = e
    ts = max(tp, sp); sd = dp * sp * cp
    lbsz = gbsz // chunks // dp
    z2, z3 = ratios(chunks)
    fac = z3(sd) if dt == 2 else (z2(sd) if dt == 1 else 1.0)
    ms = [0] * pp; act = [0] * pp
    if pp == 1:
        ms[0] = OFF['model_states'][tp] * fac
        act[0] = OFF['activation'][ts] * (1 * lbsz)
    else:
        ms[0] = FIRST['model_states'][tp] * fac
        ms[-1] = LAST['model_states'][tp] * fac
        c0, c1 = (pp, 1) if PIPE == 'pipedream_flush' else (chunks, chunks)
        act[0] = FIRST['activation'][ts] * (c0 * lbsz)
        act[-1] = LAST['activation'][ts] * (c1 * lbsz)
    return [0 + ms[i] + act[i] + CTX for i in range(pp)]

def inter_cost(L, gbsz, chunks, pp):
    S = len(L)
    res = np.zeros((S, S))
    for a in range(S):
        for b in range(S):
            if a == b: continue
            f, l = L[a], L[b]
            if SEQPAR and tpsp(f) != tpsp(l):
                gg = max(tpsp(f), tpsp(l))
                cd = WORLD // pp // gg
                clb = gbsz / chunks / cd
                sss = SEQ * HID * (2 if MIXED else 4)
                v = (gg - 1) / gg * clb * sss
                if gg == 1 or cd == 1:
                    coe = COE['%d' % gg] if ('%d' % gg) in COE else COE['%d_1' % gg]
                else:
                    coe = COE['%d_1' % gg]
                res[a, b] = v * (coe * 1e-7)
            else:
                same = lambda keys: all(f[k] == l[k] for k in keys)
                PP, TP, SP, DP, DTi, CK = 0, 1, 2, 4, 5, 6
                sp_m = same([PP, DP, CK, DTi]) and tpsp(f) == tpsp(l) and f[SP] != l[SP]
                fs_m = same([PP, TP, SP, DP, CK]) and f[DTi] != l[DTi]
                ck_m = same([PP, TP, SP, DP, DTi]) and f[CK] != l[CK]
                fc_m = same([PP, TP, SP, DP]) and not (f[DTi] == l[DTi] and f[CK] == l[CK])
                if sp_m and l[SP] > 1: res[a, b] = 1e-10
                if fs_m and l[DTi] == 2: res[a, b] = 1e-9
                if ck_m and l[CK]: res[a, b] = 2e-9
                if fc_m and l[DTi] == 2 and l[CK]: res[a, b] = 3e-9
                if fc_m and not fs_m and not ck_m and f[DTi] == 2 and l[CK]: res[a, b] = 1e-9
    return res

def dp_stage(v, intra, inter, M, first_global_layer_zero):
    # v: (L,S) int, intra (L,S), inter (L,S,S); returns f (M+1,S) and mark (L,M+1,S)
    Ln, S = v.shape
    f = np.zeros((M + 1, S))
    mark = np.full((Ln, M + 1, S), -1, dtype=np.int32)
    for i in range(Ln):
        nf = np.full((M + 1, S), np.inf)
        for s in range(S):
            w = int(v[i, s])
            if w > M: continue
            cand = (f[0:M + 1 - w, :] + inter[i, :, s][None, :]) + intra[i, s]
            am = np.argmin(cand, axis=1)
            nf[w:, s] = cand[np.arange(M + 1 - w), am]
            mark[i, w:, s] = am
        f = nf
    return f, mark

def dp_read(f, mark, v, idx):
    Ln, S = v.shape
    row = f[idx]
    s = int(np.argmin(row))
    if not (row[s] < np.inf):
        return None, -1
    res = [0] * Ln; res[-1] = s; cur = idx
    for i in range(Ln - 1, 0, -1):
        nxt = int(mark[i, cur, s]); cur -= int(v[i, s]); s = nxt; res[i - 1] = s
    return res, cur - int(v[0, s])

def pipeline(strat, part, chunks, gbsz, pp, other_ns):
    w = []; n = []
    for s in strat:
        a, b = layer_time(s, gbsz, chunks); w.append(a); n.append(b)
    R = []; C = []; st = 0
    for k in range(pp):
        R.append(pw_sum(w[st:st + part[k]])); C.append(pw_sum(n[st:st + part[k]])); st += part[k]
    for k in range(pp):
        C[k] += other_ns[k]
    res = pw_sum(C) + C[-1] * (chunks - 1)
    kk = min(pp - 1, chunks - 1)
    res = max(res, max(kk * C[0] * 1 / 3, pw_sum(C[1:]) * 1 / 3) + max(kk * C[0] * 2 / 3, pw_sum(C[1:]) * 2 / 3) + C[0] * max(0, chunks + 1 - pp))
    red = max(R[i] - pw_sum(C[:i + 1]) for i in range(pp))
    red = red if red > 0 else 0
    return res + red

BUDGET = A.mem * 1024
CACHE = int(BUDGET * 0.2) if BUDGET // 1024 > 20 else 0
M = BUDGET - CACHE

def task(gbsz, chunks, pp, gbt, mode):
    mdp = max(min(gbsz // chunks, WORLD // pp), 1)
    def flt(lst):
        l = [s for s in lst if s[0] == pp and tpsp(s) <= gbt and s[4] <= mdp]
        if mode == 'tp_only': l = [s for s in l if s[2] == 1]
        if mode == 'sp_only': l = [s for s in l if s[1] == 1]
        return l
    L = flt(LAYERS); E = flt(EMBS)
    if not L or not E:
        return {'throughput': -1}
    part = [NL // pp] * (pp - 1) + [NL - (NL // pp) * (pp - 1)]
    if SEQPAR and GMB and mode != 'sp_only':
        cd = WORLD // pp // gbt
        gm = gbsz / chunks / cd * HID * SEQ * 4 / 1024 / 1024
        gm = gm / 2  # halved whenever mixed_precision string is truthy (always)
    else:
        gm = 0
    S = len(L)
    intra = np.array([layer_time(s, gbsz, chunks)[0] for s in L])
    vst = [np.array([math.ceil(layer_mem(s, gbsz, chunks, k if PIPE == 'pipedream_flush' else 0)) for s in L], dtype=np.int64) for k in range(pp)]
    inter = inter_cost(L, gbsz, chunks, pp)
    tabs = []
    st = 0
    for k in range(pp):
        n = part[k]
        v = np.tile(vst[k], (n, 1))
        ia = np.tile(intra, (n, 1))
        ie = np.tile(inter, (n, 1, 1))
        if st == 0: ie[0] = 0
        f, mark = dp_stage(v, ia, ie, M, st == 0)
        tabs.append((v, f, mark)); st += n
    best = None
    for e in E:
        om = [math.ceil(x) for x in emb_mem(e, gbsz, chunks)]
        ew, en = emb_time(e, gbsz, chunks)
        strat = []; rem = []; used = []; ok = True
        for k in range(pp):
            v, f, mark = tabs[k]
            idx = M - (om[k] + int(gm))
            if idx < 0: ok = False; break
            r_, rm = dp_read(f, mark, v, idx)
            if r_ is None: ok = False; break
            strat += [L[j] for j in r_]; rem.append(rm); used.append(M - rm + CACHE)
        if not ok: continue
        c = pipeline(strat, part, chunks, gbsz, pp, en)
        if best is None or best['time_cost'] > c:
            best = dict(time_cost=c, strat=strat, rem=rem, used=used, vtp=tpsp(e), vsp=1 if e[2] > 1 else 0, sdp=1 if e[5] == 2 else 0, part=part)
    if best is None:
        return {'throughput': 0.0}
    best['throughput'] = gbsz / best['time_cost']
    return best

def simple(s):
    pp, tp, sp, cp, dp, dt, ck = s
    t = max(tp, sp)
    return f'{pp}-' + (f'{t}*-' if t != 1 else f'{t}-') + (f'{dp}f' if dt == 2 else f'{dp}') + ('-c' if ck else '') + ('-sp' if sp > 1 else '')

pp_range = sorted(set(e[0] for e in EMBS))
tasks = []
for gbsz in [A.bsz]:
    for chunks in range(1, gbsz + 1):
        if gbsz % chunks: continue
        for pp in pp_range:
            if pp > chunks or pp > NL: continue
            mt = max(WORLD // pp, 1)
            if mt > A.max_tp: mt = A.max_tp
            mdp = max(min(gbsz // chunks, WORLD // pp), 1)
            mint = max(WORLD // pp // mdp, 1)
            for mode in ['tp_only', 'sp_only', 'tp_with_sp']:
                lst = [mt] if mode == 'sp_only' else [i for i in range(mint, mt + 1) if (i & (i - 1)) == 0 and i * pp <= WORLD]
                for gbt in lst:
                    tasks.append((gbsz, chunks, pp, mode, gbt))
bestt, bestv = -1, None
for t in tasks:
    r_ = task(t[0], t[1], t[2], t[4], t[3])
    if r_.get('time_cost') is not None:
        print('TASK|%d|%d|%s|%d|%r|%r|%s|%d|%d|%d' % (t[1], t[2], t[3], t[4], r_['time_cost'], r_['throughput'], r_['used'], r_['vtp'], r_['vsp'], r_['sdp']))
    else:
        print('TASK|%d|%d|%s|%d|inf|%r|[-1]|-1|-1|-1' % (t[1], t[2], t[3], t[4], r_['throughput']))
    if r_['throughput'] > bestt:
        bestt, bestv = r_['throughput'], (t, r_)
t, r_ = bestv
print('tasks', len(tasks))
print('Optimal', t)
print('time_cost', repr(r_['time_cost']), 'throughput', repr(r_['throughput']), 'remain', r_['rem'], 'used', r_['used'], 'vtp', r_['vtp'], 'vsp', r_['vsp'], 'embed_sdp', r_['sdp'])
print(', '.join(simple(s) for s in r_['strat']))
