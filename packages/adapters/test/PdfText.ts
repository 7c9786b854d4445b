/**
 * The text of a PDF as a reader extracts it, with unpdf (Mozilla's PDF.js): an implementation of its own, so a test
 * reads back what a person would see rather than what pdfkit says it wrote.
 */
import { Effect } from "effect"
import { extractText, getDocumentProxy } from "unpdf"

/** The text of every page, in reading order. */
export const pdfText = (bytes: Uint8Array) =>
  Effect.promise(async () => {
    const pdf = await getDocumentProxy(new Uint8Array(bytes))
    return (await extractText(pdf, { mergePages: true })).text
  })
