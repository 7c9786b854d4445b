/**
 * A QR code drawn as SVG squares (the `qrcode` library computes the modules; no image and no inline markup, so the
 * page's Content-Security-Policy needs nothing more).
 */
import QRCode from "qrcode"
import { useMemo } from "react"

export const QrCode = ({ value, label }: { readonly value: string; readonly label: string }) => {
  const modules = useMemo(() => QRCode.create(value, { errorCorrectionLevel: "M" }).modules, [value])
  const size = modules.size
  const squares: Array<{ x: number; y: number }> = []
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) if (modules.get(x, y)) squares.push({ x, y })
  }
  return (
    <svg
      className="qr"
      viewBox={`-2 -2 ${size + 4} ${size + 4}`}
      role="img"
      aria-label={label}
      shapeRendering="crispEdges"
    >
      {squares.map(({ x, y }) => (
        <rect key={`${x}-${y}`} x={x} y={y} width={1} height={1} />
      ))}
    </svg>
  )
}
