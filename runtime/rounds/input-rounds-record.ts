/**
 * What the audit record of a call says of the input it asked its client for
 * (`metadata.input_rounds`): how many rounds, which kinds of request (never
 * the answers), and whether the call was run again on a replica that did not
 * hold it. One record per call, however many rounds it took.
 */
export interface InputRoundsRecord {
  rounds: number;
  /** The methods asked (`elicitation/create`, `sampling/createMessage`, `roots/list`), in order. */
  asked: string[];
  /** Set when the call was run again at its backend to finish it (at least once). */
  reissued?: boolean;
}
