# Exact IEEE rounding with Fractions: an independent reference for table values.
from fractions import Fraction as F
import struct, math
FMT={'f32':(24,-126,127,32),'f64':(53,-1022,1023,64),'f16':(11,-14,15,16),'bf16':(8,-126,127,16)}
def decode(bits,fmt):
    p,emin,emax,w=FMT[fmt]; eb=w-p; 
    s=bits>>(w-1); e=(bits>>(p-1))&((1<<eb)-1); m=bits&((1<<(p-1))-1)
    if e==(1<<eb)-1: return ('nan' if m else ('-inf' if s else 'inf'))
    if e==0: v=F(m,1)*F(2)**(emin-(p-1))
    else: v=F(m+(1<<(p-1)))*F(2)**(e-(1<<(eb-1))+1-(p-1))
    return (-v if s else v) if v!=0 else ('-0' if s else 0)
def val(x,fmt):
    if isinstance(x,str) and x.startswith('0x'): return decode(int(x,16),fmt)
    return x
def encode(v,fmt,mode='rn',neg_zero=False):
    p,emin,emax,w=FMT[fmt]; eb=w-p
    if v==0: return (1<<(w-1)) if neg_zero else 0
    s=0
    if v<0: s=1; v=-v
    # find exponent
    e=math.floor(math.log2(v.numerator)-math.log2(v.denominator))
    while F(2)**e>v: e-=1
    while F(2)**(e+1)<=v: e+=1
    e=max(e,emin)
    q=v/F(2)**(e-(p-1))  # scaled significand
    fl=q.numerator//q.denominator; rem=q-fl
    m=mode
    if s and m=='rp': m='rz'
    elif s and m=='rm': m='ru'
    elif m=='rm': m='rz'
    elif m=='rp': m='ru'
    if m=='rn':
        if rem>F(1,2) or (rem==F(1,2) and fl%2==1): fl+=1
    elif m=='ru':
        if rem>0: fl+=1
    if fl>=(1<<p): fl//=2; e+=1
    if e>emax:
        inf=((1<<eb)-1)<<(p-1)
        if m=='rz': return (s<<(w-1))|(inf-1)
        return (s<<(w-1))|inf
    if fl < (1<<(p-1)):  # subnormal
        return (s<<(w-1))|fl
    return (s<<(w-1))|((e-emin+1)<<(p-1))|(fl-(1<<(p-1)))
def h(x,w=8): return '0x%0*x'%(w,x)
