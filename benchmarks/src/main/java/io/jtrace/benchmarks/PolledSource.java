package io.jtrace.benchmarks;

import io.jtrace.agent.tracks.PlatformMBeans;
import io.jtrace.agent.tracks.PollingDataSource;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.protos.DataSourceConfig;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.concurrent.ScheduledExecutorService;

/**
 * One running instance of a polling data source (jvm.threads, jvm.memory, jvm.jmx) made through its
 * public API as the agent makes it ({@code create}, {@code start}), writing into a {@link FreedSmb},
 * whose samples the benchmark takes one by one on its own thread ({@link #sample}): each is what the
 * agent's sampling thread does once per period, the instance's lock and the sequence's checks included.
 */
final class PolledSource implements AutoCloseable {
    static final int SMB_SIZE = 4 * 1024 * 1024;

    private final FreedSmb smb;
    private final ManualSamplingThread samplingThread = new ManualSamplingThread();
    private final DataSourceInstance instance;

    PolledSource(BiFunction<ProcessTrack, ScheduledExecutorService, PollingDataSource> source, DataSourceConfig config)
            throws Exception {
        awaitPlatformMBeanServer();
        smb = new FreedSmb(SMB_SIZE);
        instance = source.apply(ProcessTrack.forCurrentJvm(), samplingThread).create(smb, config);
        instance.start();
        sample(); // the first sample: jvm.threads' dump of every thread
    }

    /** One sample. */
    void sample() {
        samplingThread.runPeriodic();
    }

    /** Waits until the platform MBean server is up, as it is a few hundred ms into a traced JVM's life. */
    static void awaitPlatformMBeanServer() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (PlatformMBeans.ifReady() == null) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the platform MBean server did not start");
            }
            Thread.sleep(10);
        }
    }

    @Override
    public void close() {
        instance.stop();
        smb.close();
    }
}
