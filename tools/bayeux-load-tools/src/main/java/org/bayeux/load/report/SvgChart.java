package org.bayeux.load.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Inline SVG line charts for the reports: one y axis per chart (so one magnitude per chart), ticks on both axes,
 * shaded phase bands, and gaps where a series has no data (a NaN point breaks the line instead of drawing 0).
 */
final class SvgChart {
    static final int WIDTH = 760;
    static final int HEIGHT = 260;
    private static final int LEFT = 70;
    private static final int RIGHT = 30;
    private static final int TOP = 36;
    private static final int BOTTOM = 40;
    /** Colours of successive series; the same order in every chart of a page. */
    static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
        "#17becf"};

    /** One line; a point's y may be NaN: no data there, drawn as a gap. */
    record Series(String name, String colour, List<double[]> points, boolean dashed) {
    }

    /** A shaded stretch of the x axis: a run phase. */
    record Band(String name, double from, double to, String colour) {
    }

    private SvgChart() {
    }

    /**
     * @param xLabel the x axis's name
     * @param yUnit the y axis's unit
     * @param series the lines
     * @param bands the phases, may be empty
     * @return the chart, or a sentence when no series has a point
     */
    static String time(String xLabel, String yUnit, List<Series> series, List<Band> bands) {
        double maxX = 0;
        double maxY = 0;
        boolean any = false;
        for (Series line : series) {
            for (double[] p : line.points()) {
                maxX = Math.max(maxX, p[0]);
                if (!Double.isNaN(p[1])) {
                    maxY = Math.max(maxY, p[1]);
                    any = true;
                }
            }
        }
        for (Band band : bands) {
            maxX = Math.max(maxX, band.to());
        }
        if (!any) {
            return "<p class=\"no-data\">No data.</p>\n";
        }
        if (maxY == 0) {
            // All true zeros (no errors, say): a 0 to 1 axis with the line along its foot.
            maxY = 1;
        }
        double xStep = niceStep(Math.max(1, maxX) / 8);
        double scaleX = Math.ceil(Math.max(1, maxX) / xStep) * xStep;
        double yStep = niceStep(Math.max(maxY, 1e-9) / 4);
        double scaleY = Math.max(yStep, Math.ceil(maxY / yStep) * yStep);
        StringBuilder svg = open();
        int index = 0;
        for (Band band : bands) {
            // Short phases side by side: their names alternate between two heights so as not to overlap.
            int labelY = index++ % 2 == 0 ? TOP - 3 : TOP - 14;
            double x1 = x(band.from(), scaleX);
            double x2 = x(Math.min(band.to(), scaleX), scaleX);
            if (x2 > x1) {
                svg.append(String.format(Locale.ROOT, "<rect class=\"phase %s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
                        + "height=\"%d\" fill=\"%s\" fill-opacity=\"0.35\"><title>%s</title></rect>"
                        + "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" fill=\"#555\">%s</text>", band.name(), x1, TOP,
                        x2 - x1, HEIGHT - TOP - BOTTOM, band.colour(), band.name(), x1 + 2, labelY, band.name()));
            }
        }
        axes(svg, yUnit, scaleY, yStep);
        svg.append("<g class=\"x-ticks\">");
        for (double t = 0; t <= scaleX + xStep / 2; t += xStep) {
            double x = x(t, scaleX);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>"
                    + "<text class=\"tick\" x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s</text>",
                    x, HEIGHT - BOTTOM, x, HEIGHT - BOTTOM + 5, x, HEIGHT - BOTTOM + 17, format(t)));
        }
        svg.append("</g>");
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s"
                + "</text>", LEFT + (WIDTH - LEFT - RIGHT) / 2, HEIGHT - 6, HtmlReport.escape(xLabel)));
        lines(svg, series, scaleX, scaleY);
        return svg.append("</svg>\n").toString();
    }

    /** Latency against percentile; x is already log10(1 / (1 - p)), 0 to 5 (99.999 %). */
    static String percentiles(List<Series> series) {
        double maxY = 0;
        for (Series line : series) {
            for (double[] p : line.points()) {
                maxY = Math.max(maxY, p[1]);
            }
        }
        double yStep = niceStep(Math.max(maxY, 1e-9) / 4);
        double scaleY = Math.max(yStep, Math.ceil(maxY / yStep) * yStep);
        StringBuilder svg = open();
        axes(svg, "ms", scaleY, yStep);
        String[] labels = {"0%", "90%", "99%", "99.9%", "99.99%", "99.999%"};
        svg.append("<g class=\"x-ticks\">");
        for (int i = 0; i < labels.length; i++) {
            double x = x(i, 5);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>"
                    + "<text class=\"tick\" x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s</text>",
                    x, HEIGHT - BOTTOM, x, HEIGHT - BOTTOM + 5, x, HEIGHT - BOTTOM + 17, labels[i]));
        }
        svg.append("</g>");
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">"
                + "percentile</text>", LEFT + (WIDTH - LEFT - RIGHT) / 2, HEIGHT - 6));
        lines(svg, series, 5, scaleY);
        return svg.append("</svg>\n").toString();
    }

    private static StringBuilder open() {
        return new StringBuilder(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">",
                WIDTH, HEIGHT, WIDTH, HEIGHT));
    }

    private static void axes(StringBuilder svg, String unit, double scaleY, double yStep) {
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>"
                        + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>",
                LEFT, HEIGHT - BOTTOM, WIDTH - RIGHT, HEIGHT - BOTTOM, LEFT, TOP, LEFT, HEIGHT - BOTTOM));
        svg.append("<g class=\"y-ticks\">");
        for (double v = 0; v <= scaleY + yStep / 2; v += yStep) {
            double y = y(v, scaleY);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                    + "stroke=\"#e3e3e3\"/><text class=\"tick\" x=\"%d\" y=\"%.1f\" font-size=\"11\" "
                    + "text-anchor=\"end\">%s</text>", LEFT, y, WIDTH - RIGHT, y, LEFT - 4, y + 4, format(v)));
        }
        svg.append("</g>");
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>", 4, 12,
                HtmlReport.escape(unit)));
    }

    /** Each series as polylines broken at NaN points, and a legend. */
    private static void lines(StringBuilder svg, List<Series> series, double scaleX, double scaleY) {
        for (int s = 0; s < series.size(); s++) {
            Series line = series.get(s);
            List<List<double[]>> runs = new ArrayList<>();
            List<double[]> current = new ArrayList<>();
            for (double[] p : line.points()) {
                if (Double.isNaN(p[1])) {
                    if (!current.isEmpty()) {
                        runs.add(current);
                        current = new ArrayList<>();
                    }
                } else {
                    current.add(p);
                }
            }
            if (!current.isEmpty()) {
                runs.add(current);
            }
            svg.append("<g class=\"series\" data-name=\"").append(HtmlReport.escape(line.name())).append("\">");
            for (List<double[]> run : runs) {
                StringBuilder points = new StringBuilder();
                for (double[] p : run) {
                    points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x(p[0], scaleX), y(p[1], scaleY)));
                }
                if (run.size() == 1) {
                    svg.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"%s\"/>",
                            x(run.get(0)[0], scaleX), y(run.get(0)[1], scaleY), line.colour()));
                } else {
                    svg.append("<polyline fill=\"none\" stroke=\"").append(line.colour())
                            .append(line.dashed() ? "\" stroke-dasharray=\"5,3" : "")
                            .append("\" stroke-width=\"1.5\" points=\"").append(points.toString().trim())
                            .append("\"/>");
                }
            }
            svg.append("</g>");
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"%s\">%s</text>",
                    WIDTH - RIGHT - 190, TOP + 12 + 13 * s, line.colour(), HtmlReport.escape(line.name())));
        }
    }

    private static double x(double value, double scale) {
        return LEFT + (WIDTH - LEFT - RIGHT) * value / scale;
    }

    private static double y(double value, double scale) {
        return HEIGHT - BOTTOM - (HEIGHT - TOP - BOTTOM) * (scale == 0 ? 0 : value / scale);
    }

    /** @return 1, 2 or 5 times a power of ten, at least {@code value} */
    static double niceStep(double value) {
        if (value <= 0) {
            return 1;
        }
        double power = Math.pow(10, Math.floor(Math.log10(value)));
        for (double step : new double[] {1, 2, 5, 10}) {
            if (step * power >= value * (1 - 1e-9)) {
                return step * power;
            }
        }
        return 10 * power;
    }

    static String format(double value) {
        if (Math.abs(value - Math.rint(value)) < 1e-9 && Math.abs(value) < 1e15) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        return new java.math.BigDecimal(value).round(new java.math.MathContext(3)).stripTrailingZeros()
                .toPlainString();
    }
}
