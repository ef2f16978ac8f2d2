import { ansiSpans } from './ansi-spans.js';

/** Props of {@link AnsiOutput}. */
export interface AnsiOutputProps {
  readonly text: string;
}

/** Terminal output with its ANSI colours and weights as styled text (never as markup). */
export function AnsiOutput({ text }: AnsiOutputProps) {
  return (
    <>
      {ansiSpans(text).map((span, index) =>
        span.color || span.background || span.bold || span.italic || span.underline || span.dim ? (
          <span
            key={index}
            style={{
              color: span.color,
              backgroundColor: span.background,
              fontWeight: span.bold ? 'bold' : undefined,
              fontStyle: span.italic ? 'italic' : undefined,
              textDecoration: span.underline ? 'underline' : undefined,
              opacity: span.dim ? 0.7 : undefined,
            }}
          >
            {span.text}
          </span>
        ) : (
          span.text
        ),
      )}
    </>
  );
}
