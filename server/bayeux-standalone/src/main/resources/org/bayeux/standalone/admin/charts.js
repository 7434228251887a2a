// Line charts on a canvas: no library. A chart keeps the last `capacity` points of each series and redraws
// everything on each push (a few hundred segments once a second).

const PAD = { left: 48, right: 8, top: 8, bottom: 18 };

export class LineChart {
  /**
   * @param {HTMLCanvasElement} canvas
   * @param {{name: string, color: string}[]} series
   * @param {number} [capacity] points kept (one a second)
   */
  constructor(canvas, series, capacity = 120) {
    this.canvas = canvas;
    this.series = series;
    this.capacity = capacity;
    /** @type {{time: number, values: (number|null)[]}[]} */
    this.points = [];
  }

  /**
   * @param {number} time milliseconds since the epoch
   * @param {(number|null)[]} values one per series; null draws a gap
   */
  push(time, values) {
    this.points.push({ time, values });
    if (this.points.length > this.capacity) {
      this.points.shift();
    }
    this.draw();
  }

  draw() {
    const canvas = this.canvas;
    const ratio = window.devicePixelRatio || 1;
    const width = canvas.clientWidth;
    const height = canvas.clientHeight;
    if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
      canvas.width = Math.round(width * ratio);
      canvas.height = Math.round(height * ratio);
    }
    const g = canvas.getContext('2d');
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.clearRect(0, 0, width, height);
    const plotW = width - PAD.left - PAD.right;
    const plotH = height - PAD.top - PAD.bottom;
    let max = 0;
    for (const point of this.points) {
      for (const value of point.values) {
        if (value != null && value > max) max = value;
      }
    }
    const top = niceCeiling(max);
    g.font = '11px system-ui, sans-serif';
    g.strokeStyle = '#e3e7ee';
    g.fillStyle = '#5b6475';
    g.lineWidth = 1;
    g.textAlign = 'right';
    g.textBaseline = 'middle';
    for (let i = 0; i <= 4; i++) {
      const y = PAD.top + plotH - (plotH * i) / 4;
      g.beginPath();
      g.moveTo(PAD.left, y);
      g.lineTo(PAD.left + plotW, y);
      g.stroke();
      g.fillText(formatNumber((top * i) / 4), PAD.left - 4, y);
    }
    const step = plotW / Math.max(1, this.capacity - 1);
    const offset = this.capacity - this.points.length;
    this.series.forEach((serie, s) => {
      g.strokeStyle = serie.color;
      g.lineWidth = 1.8;
      g.beginPath();
      let drawing = false;
      this.points.forEach((point, i) => {
        const value = point.values[s];
        if (value == null) {
          drawing = false;
          return;
        }
        const x = PAD.left + (offset + i) * step;
        const y = PAD.top + plotH - (top === 0 ? 0 : (value / top) * plotH);
        if (drawing) g.lineTo(x, y); else g.moveTo(x, y);
        drawing = true;
      });
      g.stroke();
    });
    // The legend, with each series' latest value.
    g.textAlign = 'left';
    g.textBaseline = 'alphabetic';
    let x = PAD.left;
    const last = this.points[this.points.length - 1];
    this.series.forEach((serie, s) => {
      const value = last?.values[s];
      const label = `${serie.name} ${value == null ? '–' : formatNumber(value)}`;
      g.fillStyle = serie.color;
      g.fillRect(x, height - 10, 10, 3);
      g.fillStyle = '#1d2330';
      g.fillText(label, x + 14, height - 4);
      x += g.measureText(label).width + 28;
    });
  }
}

/** @returns {number} 1, 2 or 5 times a power of ten, at least `value` (1 for 0) */
export function niceCeiling(value) {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const m of [1, 2, 5, 10]) {
    if (m * power >= value) return m * power;
  }
  return 10 * power;
}

/** @returns {string} 1234 as "1234", 12345 as "12.3k", 0.25 as "0.25" */
export function formatNumber(value) {
  if (value >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (value >= 1e4) return `${(value / 1e3).toFixed(1)}k`;
  if (Number.isInteger(value)) return String(value);
  return String(Math.round(value * 100) / 100);
}
