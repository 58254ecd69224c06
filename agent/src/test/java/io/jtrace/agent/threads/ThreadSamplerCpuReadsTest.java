package io.jtrace.agent.threads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.agent.trackevent.RecordingContext;
import io.jtrace.agent.tracks.DecodedSequences;
import io.jtrace.agent.tracks.PlatformMBeans;
import io.jtrace.agent.tracks.PolledSequence;
import io.jtrace.producer.tracks.ProcessTrack;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which threads' CPU time the sampler reads at each sample (a system call each, the dearest part of a
 * sample), seen through a {@link ThreadMXBean} that notes every read and passes it to the JVM's.
 */
class ThreadSamplerCpuReadsTest {
    private static final int SAMPLES = 60;

    @TempDir
    Path dir;

    private RecordingContext context;
    private PolledSequence sequence;
    private ProcessTrack process;
    private final List<Read> reads = new ArrayList<>();
    /** The sample being taken: what each read is noted under. */
    private int sample;
    private Pipe pipe;
    private volatile boolean stop;
    private final List<Thread> subjects = new ArrayList<>();

    record Read(int sample, long javaId, long cpuNanos) {}

    @BeforeEach
    void open() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (PlatformMBeans.ifReady() == null) {
            assertTrue(System.nanoTime() < deadline, "the platform MBean server did not start");
            Thread.sleep(10);
        }
        context = new RecordingContext(dir, 4 << 20);
        process = new ProcessTrack(1, "test", 5);
        sequence = new PolledSequence(process, context);
        sequence.open();
        pipe = Pipe.open();
    }

    @AfterEach
    void close() throws Exception {
        stop = true;
        pipe.sink().write(ByteBuffer.wrap(new byte[] {1}));
        for (Thread t : subjects) {
            t.join();
        }
        pipe.sink().close();
        pipe.source().close();
        context.close();
    }

    @Test
    void aRunnableThreadThatUsesNoCpuIsReadInTurnsAndOneThatRunsIsReadAtEverySampleAfterItRan() throws Exception {
        // RUNNABLE to Java all along, but waiting in the kernel: no CPU used.
        Thread inNative = subject("tst-in-native", () -> {
            try {
                pipe.source().read(ByteBuffer.allocate(1));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Thread spinner = subject("tst-spinner", () -> {
            while (!stop) {
                Thread.onSpinWait();
            }
        });
        ThreadMXBean real = ManagementFactory.getThreadMXBean();
        awaitStill(inNative, real);
        ThreadSampler sampler = new ThreadSampler(sequence, noting(real));
        long t0 = System.nanoTime();
        sequence.beginSample();
        sampler.first(t0);
        for (sample = 1; sample <= SAMPLES; sample++) {
            Thread.sleep(2);
            sequence.beginSample();
            sampler.sample(t0 + sample * 1_000_000L);
        }
        sequence.close();
        DecodedSequences trace = new DecodedSequences(context.read());

        assertEquals(List.of(), trace.undecodable());
        assertEquals(Thread.State.RUNNABLE, inNative.getState());
        // Read when first seen, once more (the first read had nothing to compare with), then in turns.
        List<Read> still = readsOf(inNative);
        int turns = SAMPLES / ThreadSampler.STILL_RUNNABLE_CPU_READ_EVERY;
        assertTrue(still.size() >= turns && still.size() <= turns + 3,
                "a thread RUNNABLE in native code is read in turns of " + ThreadSampler.STILL_RUNNABLE_CPU_READ_EVERY
                        + " samples, not at each of " + SAMPLES + ": " + still);

        // After any read that found the spinner's CPU time moved, the next sample reads it again.
        List<Read> busy = readsOf(spinner);
        int moved = 0;
        for (int k = 1; k < busy.size(); k++) {
            Read r = busy.get(k);
            if (r.cpuNanos() != busy.get(k - 1).cpuNanos() && r.sample() < SAMPLES) {
                moved++;
                assertTrue(k + 1 < busy.size() && busy.get(k + 1).sample() == r.sample() + 1,
                        "the spinner's CPU moved at sample " + r.sample() + " but it was not read at the next: " + busy);
            }
        }
        assertTrue(moved > 0, "the spinner never ran: " + busy);
        List<Number> cpu = trace.counterValues(trace.track(process.threadUuid(tidOf(spinner, trace)), ThreadsDataSource.CPU_TRACK));
        assertTrue(cpu.size() >= moved, "a CPU time counter value for each move of the spinner's: " + cpu);
    }

    private Thread subject(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        subjects.add(t);
        return t;
    }

    /** Waits until {@code t} is RUNNABLE and its CPU time stands still: it waits in the kernel. */
    private static void awaitStill(Thread t, ThreadMXBean bean) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long last = -1;
        while (true) {
            long cpu = bean.getThreadCpuTime(t.getId());
            if (t.getState() == Thread.State.RUNNABLE && cpu == last) {
                return;
            }
            last = cpu;
            assertTrue(System.nanoTime() < deadline, t.getName() + " never waited still");
            Thread.sleep(20);
        }
    }

    private List<Read> readsOf(Thread t) {
        return reads.stream().filter(r -> r.javaId() == t.getId()).toList();
    }

    /** The OS tid the sampler placed {@code t} at, from its track's descriptor in the trace. */
    private long tidOf(Thread t, DecodedSequences trace) {
        return trace.tracksNamed(ThreadsDataSource.CPU_TRACK).stream()
                .map(track -> trace.descriptors(track).get(0).getParentUuid())
                .flatMap(parent -> trace.descriptors(parent).stream())
                .filter(d -> d.getThread().getThreadName().equals(t.getName()))
                .findFirst().orElseThrow(() -> new AssertionError(t.getName() + " has no track"))
                .getThread().getTid();
    }

    /** {@code real}, noting each {@code getThreadCpuTime(id)} with its result under {@link #sample}. */
    private ThreadMXBean noting(ThreadMXBean real) {
        return (ThreadMXBean) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ThreadMXBean.class},
                (proxy, method, args) -> {
                    Object result;
                    try {
                        result = method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("getThreadCpuTime") && args.length == 1 && args[0] instanceof Long id) {
                        reads.add(new Read(sample, id, (Long) result));
                    }
                    return result;
                });
    }
}
