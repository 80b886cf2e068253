# SPDX-License-Identifier: GPL-3.0-or-later
# One Llama-3-8B-shaped layer (torchtitan's rotary, GQA, SwiGLU), forward+backward: eager against torch.compile.
# Ran once on a lent H200 (gzip+base64-encoded: the device tool takes 2,000 characters), exactly the code
# below these comment lines; its stdout is in tests/data/measured/host-overhead-h200 (docs/kernels.md §7).
import torch,time,json,statistics as S
T=torch;nn=T.nn;F=nn.functional;d='cuda';h,f,H,K,s,b=4096,14336,32,8,8192,2
def rot(t,fc):
 tc=T.view_as_complex(t.float().reshape(*t.shape[:-1],-1,2));return T.view_as_real(tc*fc).flatten(3).type_as(t)
class L(nn.Module):
 def __init__(m):
  super().__init__();B=lambda i,o:nn.Linear(i,o,bias=False);m.n1=nn.RMSNorm(h);m.n2=nn.RMSNorm(h);m.wq=B(h,h);m.wk=B(h,K*128);m.wv=B(h,K*128);m.wo=B(h,h);m.w1=B(h,f);m.w3=B(h,f);m.w2=B(f,h)
 def forward(m,x,fc):
  y=m.n1(x);q=rot(m.wq(y).view(b,s,H,128),fc);k=rot(m.wk(y).view(b,s,K,128),fc);v=m.wv(y).view(b,s,K,128)
  k=k.repeat_interleave(H//K,dim=2);v=v.repeat_interleave(H//K,dim=2)
  o=F.scaled_dot_product_attention(q.transpose(1,2),k.transpose(1,2),v.transpose(1,2),is_causal=True).transpose(1,2).reshape(b,s,h)
  x=x+m.wo(o);y=m.n2(x);return x+m.w2(F.silu(m.w1(y))*m.w3(y))
fr=1.0/(500000**(T.arange(0,128,2,device=d).float()/128));fc=T.polar(T.ones(s,64,device=d),T.outer(T.arange(s,device=d).float(),fr)).view(1,s,1,64)
x=T.randn(b,s,h,device=d,dtype=T.bfloat16,requires_grad=True)
for mode in('eager','compile'):
 ls=[L().to(d,T.bfloat16) for _ in range(2)]
 if mode=='compile':ls=[T.compile(l) for l in ls]
 def st():
  y=x
  for l in ls:y=l(y,fc)
  y.float().sum().backward()
 for _ in range(3):st()
 W=[]
 for _ in range(7):
  T.cuda.synchronize();a=time.perf_counter();st();T.cuda.synchronize();W.append(time.perf_counter()-a)
 print(json.dumps({'mode':mode,'layers':2,'h':h,'ffn':f,'heads':H,'kv':K,'seq':s,'mbs':b,'s_per_layer_fwd_bwd':S.median(W)/2,'torch':T.__version__,'gpu':T.cuda.get_device_name()}),flush=True)
 del ls
