package io.jtrace.benchmarks;

import io.jtrace.agent.threads.ThreadsDataSource;
import io.jtrace.protos.DataSourceConfig;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One sample of jvm.threads with {@link #threads} parked platform threads besides the JVM's and JMH's
 * own, in the steady state: every thread placed (by the first sample's dump), nothing changing but
 * the CPU time of the few that run. The source is made and started through its public API and
 * writes into a real SMB (chunks freed at once). Divide the score by the live thread count the setup
 * prints for the cost per thread per sample.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class JvmThreadsBenchmark {
    @Param({"100", "1000"})
    public int threads;

    private final List<Thread> parked = new ArrayList<>();
    private volatile boolean done;
    private PolledSource source;

    @Setup(Level.Trial)
    public void start() throws Exception {
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                while (!done) {
                    LockSupport.park();
                }
            }, "parked-" + i);
            t.setDaemon(true);
            t.start();
            parked.add(t);
        }
        source = new PolledSource(ThreadsDataSource::new,
                DataSourceConfig.newBuilder().setName(ThreadsDataSource.NAME).build());
        System.out.println("live threads: " + ManagementFactory.getThreadMXBean().getThreadCount());
    }

    @TearDown(Level.Trial)
    public void stop() throws InterruptedException {
        source.close();
        done = true;
        for (Thread t : parked) {
            LockSupport.unpark(t);
            t.join();
        }
    }

    @Benchmark
    public void threadsSample() {
        source.sample();
    }
}
