import { Fragment } from "preact";
import { routeHash } from "../route";
import { type ReportCitation, type ReportRef, refLabel, reportPieces } from "./report-citations";

/**
 * Report text with its citation markers as references: an entity opens in the graph explorer, a
 * relationship opens its source entity there (whose panel lists it), a report in the communities
 * view; an id nothing names is plain text. A bracket's references read "(A, B — C)".
 */
export function ReportText({
  text,
  citations,
}: {
  text: string;
  citations: Readonly<Record<string, ReportCitation>>;
}) {
  return (
    <>
      {reportPieces(text, citations).map((piece, i) => {
        if ("ref" in piece) return <Ref key={i} reference={piece.ref} />;
        if ("refs" in piece) {
          return (
            <span key={i} class="report-refs">
              (
              {piece.refs.map((reference, j) => (
                <Fragment key={j}>
                  {j > 0 && ", "}
                  <Ref reference={reference} />
                </Fragment>
              ))}
              )
            </span>
          );
        }
        return piece.text;
      })}
    </>
  );
}

function Ref({ reference }: { reference: ReportRef }) {
  const label = refLabel(reference);
  switch (reference.kind) {
    case "entity":
      return (
        <a class="report-ref" href={routeHash("graph", { entity: reference.name })} title="Open in the graph">
          {label}
        </a>
      );
    case "relationship":
      return (
        <a
          class="report-ref"
          href={routeHash("graph", { entity: reference.source })}
          title={`Open ${reference.source} in the graph, with its relationship to ${reference.target}`}
        >
          {label}
        </a>
      );
    case "community":
      return (
        <a
          class="report-ref"
          href={routeHash("communities", { community: reference.id })}
          title="Open this report"
        >
          {label}
        </a>
      );
    default:
      return <span class="report-ref muted">{label}</span>;
  }
}
