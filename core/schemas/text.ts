/**
 * The characters a text field may hold (docs/security.md, "Text fields"). What a client writes is
 * shown on screens it does not control: a moderator's terminal (`marketkit admin queue`), logs,
 * review pages. So single-line fields (a title, a name, a tag) hold no control character at all
 * (no ESC, CR, LF or TAB), no bidirectional embedding, override or isolate (which reorder what a
 * reader sees), no line or paragraph separator and no lone surrogate; multi-line fields (a
 * description, a bio) hold TAB, LF and CR besides, and nothing else of those.
 */
import { FormatRegistry, Type } from '@sinclair/typebox';
import { publishedAs } from './common.js';

/** C1 controls, DEL, the bidirectional controls (U+202A-U+202E, U+2066-U+2069) and lone surrogates: refused in every text field. */
const neverInText = '\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069';
const loneSurrogate = '[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]';

const notOnOneLine = new RegExp(`[\\u0000-\\u001f\\u2028\\u2029${neverInText}]|${loneSurrogate}`);
const notInText = new RegExp(`[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f${neverInText}]|${loneSurrogate}`);

/** Whether `value` may be a single-line field: no control, line-breaking or bidirectional-control character, no lone surrogate. */
export const isSingleLine = (value: string): boolean => !notOnOneLine.test(value);
/** Whether `value` may be a multi-line field: as isSingleLine, but TAB, LF and CR are allowed. */
export const isMultiLine = (value: string): boolean => !notInText.test(value);

if (!FormatRegistry.Has('single-line')) FormatRegistry.Set('single-line', isSingleLine);
if (!FormatRegistry.Has('multi-line')) FormatRegistry.Set('multi-line', isMultiLine);

/** The same rules as standard JSON Schema patterns, for published schemas (a lone surrogate is the server's check only). */
const singleLinePattern = `^[^\\u0000-\\u001f\\u2028\\u2029${neverInText}]*$`;
const multiLinePattern = `^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f${neverInText}]*$`;

interface TextOptions {
  minLength?: number;
  maxLength: number;
  description?: string;
}

/** What a value of each format must be, in words: the message of a value that fails the format (a length error keeps its own words). */
export const textFormatWords: Readonly<Record<string, string>> = {
  'single-line': 'must be on one line, without control or bidirectional-override characters',
  'multi-line': 'must not contain control characters other than tab and line breaks, or bidirectional overrides',
};

function text(options: TextOptions, format: 'single-line' | 'multi-line') {
  const pattern = format === 'single-line' ? singleLinePattern : multiLinePattern;
  return Type.String({ ...options, format, [publishedAs]: { type: 'string', ...options, pattern } });
}

/** A single-line text field: a title, a name, a tag, a label. */
export const SingleLine = (options: TextOptions) => text(options, 'single-line');

/** A multi-line text field: a description, a bio. */
export const MultiLine = (options: TextOptions) => text(options, 'multi-line');
