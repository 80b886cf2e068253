# SPDX-License-Identifier: GPL-3.0-or-later
# The host side of an eager PyTorch step on one GPU (docs/kernels.md §7). Kept compact: the device tool
# takes a command of at most 2,000 characters, so it ran gzip+base64-encoded, exactly this code below
# these comment lines: python3 host_overhead_compact.py > host_overhead.jsonl (CUDA only).
# Prints: host s per op (forward under autograd, per backward node); a tiny kernel from a CUDA graph and
# eagerly; per GPT-block-stack shape: wall, host (before the sync), profiler kernels, GPU busy.
import torch,time,json,statistics as S
T=torch;F=T.nn.functional;nn=T.nn;d='cuda';sy=T.cuda.synchronize;pc=time.perf_counter
x=T.randn(64,device=d,requires_grad=True);w=T.randn(64,device=d,requires_grad=True);n=2000;r=[]
for i in range(6):
 sy();a=pc();y=x
 for _ in range(n):y=y*w
 b=pc();l=y.sum();sy();c=pc();l.backward();sy();e=pc();r.append(((b-a)/n,(e-c)/n))
print(json.dumps({'fwd_host_s_per_op':S.median([q[0] for q in r[1:]]),'bwd_host_s_per_node':S.median([q[1] for q in r[1:]])}))
z=T.zeros(1,device=d);s=T.cuda.Stream();s.wait_stream(T.cuda.current_stream())
with T.cuda.stream(s):
 for _ in range(3):z.add_(1)
T.cuda.current_stream().wait_stream(s);g=T.cuda.CUDAGraph()
with T.cuda.graph(g):
 for _ in range(n):z.add_(1)
g.replay();sy();t=[]
for _ in range(5):
 A=T.cuda.Event(enable_timing=True);B=T.cuda.Event(enable_timing=True);A.record();g.replay();B.record();B.synchronize();t.append(A.elapsed_time(B)*1e-3/n)
u=[]
for _ in range(5):
 sy();a=pc()
 for _ in range(n):z.add_(1)
 sy();u.append((pc()-a)/n)
print(json.dumps({'graph_s_per_kernel':S.median(t),'eager_s_per_kernel':S.median(u)}))
class Bk(nn.Module):
 def __init__(s,h):
  super().__init__();s.h=h;s.l1=nn.LayerNorm(h);s.qkv=nn.Linear(h,3*h);s.p=nn.Linear(h,h);s.l2=nn.LayerNorm(h);s.f1=nn.Linear(h,4*h);s.f2=nn.Linear(4*h,h)
 def forward(s,x):
  b,q,h=x.shape;Q,K,V=[t.view(b,q,h//64,64).transpose(1,2) for t in s.qkv(s.l1(x)).split(h,-1)]
  a=F.scaled_dot_product_attention(Q,K,V,is_causal=True).transpose(1,2).reshape(b,q,h)
  x=x+F.dropout(s.p(a),.1);return x+F.dropout(s.f2(F.gelu(s.f1(s.l2(x)))),.1)
from torch.profiler import profile,ProfilerActivity as PA
for h in(1024,2048):
 for q in(1024,2048):
  for b in(1,2,4,8,16):
   m=nn.Sequential(*[Bk(h) for _ in range(4)]).to(d,T.bfloat16);x=T.randn(b,q,h,device=d,dtype=T.bfloat16,requires_grad=True)
   st=lambda:m(x).float().sum().backward()
   for _ in range(3):st()
   W=[];H=[]
   for _ in range(10):
    sy();a=pc();st();c=pc();sy();e=pc();W.append(e-a);H.append(c-a)
   with profile(activities=[PA.CUDA]) as pr:
    st();sy()
   ev=[k for k in pr.events() if k.device_type.name=='CUDA']
   print(json.dumps({'h':h,'s':q,'b':b,'layers':4,'wall_s':S.median(W),'host_s':S.median(H),'kernels':len(ev),'gpu_busy_s':sum(k.device_time for k in ev)*1e-6}),flush=True)
   del m,x
