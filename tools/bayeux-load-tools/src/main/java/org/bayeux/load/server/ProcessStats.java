package org.bayeux.load.server;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The server process's CPU, GC, heap and threads, from the platform MXBeans, as a load server reports them.
 */
public final class ProcessStats {
    private ProcessStats() {
    }

    /**
     * @param fullGc whether to run a full GC first, so that the heap figure is what is live (idle-memory mode)
     * @return the figures, by name
     */
    public static Map<String, Object> snapshot(boolean fullGc) {
        if (fullGc) {
            // Twice: the first may leave objects with finalizers or references to clear for the second.
            System.gc();
            System.gc();
        }
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("heapUsedBytes", ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        stats.put("heapAfterFullGc", fullGc);
        stats.put("heapMaxBytes", Runtime.getRuntime().maxMemory());
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            stats.put("processCpuSeconds", os.getProcessCpuTime() / 1e9);
        }
        long gcCount = 0;
        long gcMillis = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcCount += Math.max(0, gc.getCollectionCount());
            gcMillis += Math.max(0, gc.getCollectionTime());
        }
        stats.put("gcCount", gcCount);
        stats.put("gcMillis", gcMillis);
        long rss = residentSetBytes();
        if (rss > 0) {
            stats.put("rssBytes", rss);
        }
        stats.put("threads", ManagementFactory.getThreadMXBean().getThreadCount());
        stats.put("uptimeSeconds", ManagementFactory.getRuntimeMXBean().getUptime() / 1000.0);
        stats.put("cores", Runtime.getRuntime().availableProcessors());
        stats.put("jvmArguments", ManagementFactory.getRuntimeMXBean().getInputArguments());
        return stats;
    }

    /** The process's resident set (Linux's {@code /proc/self/status}), or -1 where that cannot be read. */
    static long residentSetBytes() {
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    // "VmRSS:    123456 kB"
                    return Long.parseLong(line.substring(6).replace("kB", "").trim()) * 1024;
                }
            }
        } catch (java.io.IOException | RuntimeException unreadable) {
            // Not Linux, or not readable: the figure is left out.
        }
        return -1;
    }
}
