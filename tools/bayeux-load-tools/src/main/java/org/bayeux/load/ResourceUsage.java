package org.bayeux.load;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * CPU and GC of this JVM over an interval, from the platform MXBeans: what the load client itself cost, to set beside
 * the server's figures when both share a machine.
 */
record ResourceUsage(long wallNanos, long cpuNanos, long gcCount, long gcMillis, long heapUsedBytes) {
    static ResourceUsage now() {
        long gcCount = 0;
        long gcMillis = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcCount += Math.max(0, gc.getCollectionCount());
            gcMillis += Math.max(0, gc.getCollectionTime());
        }
        return new ResourceUsage(System.nanoTime(), processCpuNanos(), gcCount, gcMillis,
                ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }

    /** @return the usage from {@code start} to this one; the heap is this one's */
    ResourceUsage since(ResourceUsage start) {
        return new ResourceUsage(wallNanos - start.wallNanos, cpuNanos - start.cpuNanos, gcCount - start.gcCount,
                gcMillis - start.gcMillis, heapUsedBytes);
    }

    /** @return CPU time as a percentage of one core over the interval (200% = both cores of a 2-core machine) */
    double cpuPercentOfOneCore() {
        return wallNanos <= 0 ? 0 : 100.0 * cpuNanos / wallNanos;
    }

    Map<String, Object> toMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("wallSeconds", wallNanos / 1e9);
        map.put("cpuSeconds", cpuNanos / 1e9);
        map.put("cpuPercentOfOneCore", Math.round(cpuPercentOfOneCore() * 10) / 10.0);
        map.put("gcCount", gcCount);
        map.put("gcMillis", gcMillis);
        map.put("heapUsedBytes", heapUsedBytes);
        return map;
    }

    private static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return Math.max(0, os.getProcessCpuTime());
        }
        return 0;
    }
}
