/**
 * The HTML report of a load run: one self-contained page (inline SVG, no script) drawn from the run's
 * {@code result.json}, with the summary, the latency percentiles and the rates and latency over time.
 */
package org.bayeux.load.report;
