// The time of an audit record as Date#toISOString writes it, without a Date and V8's date
// formatting per record (a printf of seven fields, about a tenth of a record's CPU): the text up
// to the second is made once per second, the milliseconds appended.

let second = NaN;
let prefix = '';

/** `YYYY-MM-DDTHH:MM:SS.mmmZ` of `now` (ms since the epoch, a year between 0 and 9999). */
export function isoAt(now: number): string {
  const s = Math.floor(now / 1000);
  if (s !== second) {
    prefix = new Date(s * 1000).toISOString().slice(0, 20);
    second = s;
  }
  const ms = now - s * 1000;
  return `${prefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
}
