const keys = ['a','b','c','d'];
function t(label, f){ for(let i=0;i<2e5;i++) f(); const s=performance.now(); let x; for(let i=0;i<2e6;i++) x=f(); console.log(label, ((performance.now()-s)*1e6/2e6).toFixed(0),'ns'); }
t('create(null)', () => { const o = Object.create(null); for (let i=0;i<4;i++) o[keys[i]] = i; return o; });
t('plain {}', () => { const o = {}; for (let i=0;i<4;i++) o[keys[i]] = i; return o; });
t('{__proto__:null}', () => { const o = {__proto__: null}; for (let i=0;i<4;i++) o[keys[i]] = i; return o; });
