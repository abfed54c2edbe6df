/** The schema.json format in one line, for help texts and error messages. */
export const SCHEMA_FORMAT =
  '{"labels": ["Person", ...], "relationshipTypes": ["ACTED_IN", ...], ' +
  '"nodeProperties": {"Person": {"name": "STRING"}}, "relationshipProperties": {"ACTED_IN": {"roles": "LIST<STRING>"}}, ' +
  '"patterns": [{"start": "Person", "type": "ACTED_IN", "end": "Movie"}]}';
