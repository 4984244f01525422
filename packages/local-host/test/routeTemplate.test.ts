import { describe, expect, it } from 'vitest';
import { compileRoute } from '../src/http/routeTemplate.js';

describe('compileRoute', () => {
  it('matches literals case-insensitively and captures parameters', () => {
    const route = compileRoute('orders/{orderId}');
    expect(route.match('orders/o-1')).toEqual({ orderId: 'o-1' });
    expect(route.match('Orders/o%2F1')).toEqual({ orderId: 'o/1' });
    expect(route.match('orders')).toBeUndefined();
    expect(route.match('orders/o-1/extra')).toBeUndefined();
    expect(route.match('ledgers/o-1')).toBeUndefined();
  });

  it('treats a template without parameters as an exact path', () => {
    expect(compileRoute('ledgers').match('ledgers')).toEqual({});
    expect(compileRoute('/ledgers/').match('ledgers/')).toEqual({});
    expect(compileRoute('ledgers').match('ledgers/x')).toBeUndefined();
  });

  it('supports optional and catch-all parameters', () => {
    const optional = compileRoute('items/{id?}');
    expect(optional.match('items')).toEqual({});
    expect(optional.match('items/7')).toEqual({ id: '7' });
    expect(compileRoute('files/{*rest}').match('files/a/b/c')).toEqual({ rest: 'a/b/c' });
  });

  it('applies constraints', () => {
    const route = compileRoute('n/{n:int}');
    expect(route.match('n/42')).toEqual({ n: '42' });
    expect(route.match('n/x')).toBeUndefined();
  });

  it.each(['a/{*rest}/b', 'a/{id?}/b', 'a/{id:regex(x)}', 'a/x{id}'])('rejects unsupported template %s', (t) => {
    expect(() => compileRoute(t)).toThrow(TypeError);
  });
});
