#!/usr/bin/env python3
"""Peak RSS of `as2 serve` alone (its VmHWM; as2 bench serve counts its own
clients too) under 8 clients each sending two /v1/rerank requests of 1,000
documents of about 100 tokens, the largest the default limits admit, with
the built-in model; prints the status codes (429: refused by admission).

    scripts/serve-limits-rss.py ./as2
"""
import json,subprocess,sys,time,urllib.request,socket,random
binary=sys.argv[1]
s=socket.socket(); s.bind(('127.0.0.1',0)); port=s.getsockname()[1]; s.close()
p=subprocess.Popen([binary,'serve','--addr',f'127.0.0.1:{port}'],stderr=subprocess.DEVNULL)
for _ in range(100):
    try: urllib.request.urlopen(f'http://127.0.0.1:{port}/readyz'); break
    except Exception: time.sleep(0.2)
def hwm(): return [l for l in open(f'/proc/{p.pid}/status') if l.startswith(('VmHWM','VmRSS'))]
print('start', hwm())
random.seed(1)
words="the berlin wall fell on november when crowds crossed into west city number people government east german border guards opened gates".split()
docs=[" ".join(random.choice(words) for _ in range(95)) for i in range(1000)]
body=json.dumps({"model":"builtin","query":"when did the berlin wall fall?","documents":docs}).encode()
import threading,urllib.error
codes=[]
def one():
    for _ in range(2):
        try: urllib.request.urlopen(urllib.request.Request(f'http://127.0.0.1:{port}/v1/rerank',data=body,headers={'Content-Type':'application/json'}),timeout=60).read(); codes.append(200)
        except urllib.error.HTTPError as e: codes.append(e.code)
ts=[threading.Thread(target=one) for _ in range(8)]
t=time.time(); [x.start() for x in ts]; [x.join() for x in ts]; print('took',time.time()-t, sorted(codes))
print('after', hwm())
p.terminate(); p.wait()
