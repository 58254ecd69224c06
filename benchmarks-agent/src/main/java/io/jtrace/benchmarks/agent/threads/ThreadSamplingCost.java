package io.jtrace.benchmarks.agent.threads;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.locks.LockSupport;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * What a polling source costs, as users run it: start this with
 * {@code -javaagent:jtrace.jar=start,file=...,sources=jvm.threads[,threads_period=...]} (or jvm.memory,
 * jvm.jmx with their periods). Arguments: threads, seconds, the source's period in ms (default 100),
 * seconds before measuring (default 3: the first dump has placed every thread; the JIT has not compiled
 * all of what runs once per sample yet, which takes about 15 s at 100 ms). It parks that many platform
 * threads, lets the agent sample them for the given time, and prints the CPU time the agent's sampler thread (which runs every polling source) used, as a share
 * of one core and per thread per sample.
 */
public final class ThreadSamplingCost {
    private ThreadSamplingCost() {}

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        int seconds = Integer.parseInt(args[1]);
        long periodMillis = args.length > 2 ? Long.parseLong(args[2]) : 100;
        long warmUpSeconds = args.length > 3 ? Long.parseLong(args[3]) : 3;
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(LockSupport::park, "parked-" + i);
            t.setDaemon(true);
            t.start();
        }
        // Let the first dump place every thread (and the JIT compile the sampler), then measure.
        Thread.sleep(warmUpSeconds * 1000);
        ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        long sampler = samplerThreadId();
        long cpuBefore = bean.getThreadCpuTime(sampler);
        long wallBefore = System.nanoTime();
        Thread.sleep(seconds * 1000L);
        long cpu = bean.getThreadCpuTime(sampler) - cpuBefore;
        long wall = System.nanoTime() - wallBefore;
        long samples = wall / (periodMillis * 1_000_000L);
        int live = Thread.activeCount();
        System.out.printf("THREADS=%d%nSAMPLER_CPU_PERCENT_OF_ONE_CORE=%.3f%nNS_PER_SAMPLE=%.0f%nNS_PER_THREAD_PER_SAMPLE=%.0f%n",
                live, 100.0 * cpu / wall, (double) cpu / samples, (double) cpu / samples / live);
        System.out.printf("THREAD_DUMP_MS=%.2f%n", fastestThreadDumpMillis());
    }

    /**
     * The thread dump jvm.threads takes at a session's start (the same diagnostic command, in process):
     * the fastest of 5, in ms. It runs at a safepoint, so this is about how long it stops the JVM.
     */
    private static double fastestThreadDumpMillis() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName command = new ObjectName("com.sun.management:type=DiagnosticCommand");
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            long start = System.nanoTime();
            server.invoke(command, "threadPrint", new Object[] {new String[0]}, new String[] {String[].class.getName()});
            best = Math.min(best, System.nanoTime() - start);
        }
        return best / 1e6;
    }

    private static long samplerThreadId() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("jtrace-sampler")) {
                return t.getId();
            }
        }
        throw new IllegalStateException("no jtrace-sampler thread: start with -javaagent:jtrace.jar=start,...");
    }
}
