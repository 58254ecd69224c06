package io.jtrace.benchmarks.agent.jfr;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.zip.CRC32;

/**
 * A small service under steady load, for measuring what tracing it costs: what a request does is what
 * services do, so JFR's {@code default} settings see their usual event mix. Worker threads each run
 * requests that build a map of fields and serialize it (allocation, so GC and allocation samples), look
 * it up in a shared LRU cache under a monitor, send it over a loopback socket to a backend thread and
 * read the reply (socket I/O; now and then the backend is slow, so reads pass JFR's 20 ms threshold),
 * hand a log line to a writer thread that appends it to a file, and now and then fail a parse
 * (exceptions) or trip a breaker (an {@link Error}). Beside them a compactor holds the cache's monitor
 * for 25 ms every 200 ms (so blocked workers pass {@code jdk.JavaMonitorEnter}'s 20 ms threshold) and
 * sleeps between, and a scheduled stats task runs every 50 ms (its thread parks in between).
 *
 * <p>Arguments: worker threads, warm-up ms, measured ms, a scratch directory. After the warm-up it
 * counts requests for the measured time and prints {@code OPS_PER_S}, {@code CPU_MS} (the process's
 * CPU time over the measured time) and {@code GCS} ({@code -Dworkload.threadCpu=true}: also the CPU
 * of each thread over the measured time, compiler and GC threads included), then exits (so a recording or trace is completed by
 * shutdown hooks outside the measured time).
 */
public final class ServiceWorkload {
    static final long SLOW_BACKEND_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    static final int SLOW_BACKEND_MILLIS = 25;
    static final int COMPACTOR_HOLD_MILLIS = 25;
    static final int COMPACTOR_PERIOD_MILLIS = 200;
    private static final int CACHE_CAPACITY = 4096;
    private static final long LOG_ROTATE_BYTES = 8 << 20;

    /** {@code -Dworkload.threadCpu=true}: also print where the measured time's CPU went, per thread (Linux). */
    private static final boolean THREAD_CPU = Boolean.getBoolean("workload.threadCpu");

    private final LongAdder ops = new LongAdder();
    private final Map<String, byte[]> cache = new LinkedHashMap<>(CACHE_CAPACITY, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, byte[]> eldest) {
            return size() > CACHE_CAPACITY;
        }
    };
    private final BlockingQueue<String> logLines = new ArrayBlockingQueue<>(4096);
    private final AtomicLong parseFailures = new AtomicLong();
    private final AtomicLong breakerTrips = new AtomicLong();
    private final Path logFile;
    private volatile boolean running = true;
    static volatile Object sink;

    private ServiceWorkload(Path dir) {
        this.logFile = dir.resolve("service-" + ProcessHandle.current().pid() + ".log");
    }

    public static void main(String[] args) throws Exception {
        int workers = Integer.parseInt(args[0]);
        long warmupMillis = Long.parseLong(args[1]);
        long measureMillis = Long.parseLong(args[2]);
        Path dir = Files.createDirectories(Path.of(args.length > 3 ? args[3] : System.getProperty("java.io.tmpdir")));
        ServiceWorkload service = new ServiceWorkload(dir);
        try {
            service.run(workers, warmupMillis, measureMillis);
        } finally {
            Files.deleteIfExists(service.logFile);
        }
        System.exit(0);
    }

    private void run(int workers, long warmupMillis, long measureMillis) throws Exception {
        ServerSocket server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
        daemon("backend-acceptor", () -> accept(server));
        daemon("log-writer", this::writeLog);
        daemon("cache-compactor", this::compact);
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "stats");
            t.setDaemon(true);
            return t;
        });
        scheduler.scheduleAtFixedRate(this::stats, 50, 50, TimeUnit.MILLISECONDS);
        for (int i = 0; i < workers; i++) {
            int seed = i;
            daemon("worker-" + i, () -> work(server.getLocalPort(), seed));
        }
        Thread.sleep(warmupMillis);
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        Map<String, Long> threadCpuBefore = THREAD_CPU ? ThreadCpu.byName() : Map.of();
        long gcsBefore = gcCount();
        long cpuBefore = os.getProcessCpuTime();
        long opsBefore = ops.sum();
        long start = System.nanoTime();
        Thread.sleep(measureMillis);
        long opsAfter = ops.sum();
        long elapsed = System.nanoTime() - start;
        long cpu = os.getProcessCpuTime() - cpuBefore;
        if (THREAD_CPU) {
            ThreadCpu.printDelta(threadCpuBefore, ThreadCpu.byName(), elapsed);
        }
        running = false;
        System.out.printf("OPS_PER_S=%.1f%nCPU_MS=%d%nGCS=%d%nELAPSED_MS=%d%nPARSE_FAILURES=%d%nBREAKER_TRIPS=%d%n",
                (opsAfter - opsBefore) * 1e9 / elapsed, cpu / 1_000_000, gcCount() - gcsBefore, elapsed / 1_000_000,
                parseFailures.get(), breakerTrips.get());
        System.out.flush();
    }

    private static void daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
    }

    private static long gcCount() {
        long n = 0;
        for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += Math.max(0, gc.getCollectionCount());
        }
        return n;
    }

    // ---- the request path, on each worker ----

    private void work(int port, int seed) {
        SplittableRandom random = new SplittableRandom(seed);
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setTcpNoDelay(true);
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 8192));
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 8192));
            long nextSlow = System.nanoTime() + SLOW_BACKEND_EVERY_NANOS;
            long n = 0;
            while (running) {
                boolean slow = false;
                if (System.nanoTime() >= nextSlow) {
                    slow = true;
                    nextSlow += SLOW_BACKEND_EVERY_NANOS;
                }
                request(random, out, in, slow, n++);
                ops.increment();
            }
        } catch (IOException e) {
            if (running) {
                throw new IllegalStateException("worker lost its backend connection", e);
            }
        }
    }

    private void request(SplittableRandom random, DataOutputStream out, DataInputStream in, boolean slow, long n)
            throws IOException {
        String user = "user-" + random.nextInt(20_000);
        Map<String, Object> fields = new HashMap<>();
        fields.put("user", user);
        fields.put("session", Long.toHexString(random.nextLong()));
        for (int i = 0; i < 14; i++) {
            fields.put("attr" + i, random.nextBoolean() ? "value-" + random.nextInt(1000) : random.nextInt());
        }
        byte[] body = serialize(fields).getBytes(StandardCharsets.UTF_8);
        byte[] payload = new byte[2048 + random.nextInt(6144)]; // the request's attachment, as read from a client
        payload[random.nextInt(payload.length)] = 1;

        byte[] cached;
        synchronized (cache) {
            cached = cache.get(user);
            if (cached == null) {
                cache.put(user, body);
            }
        }

        out.writeBoolean(slow);
        out.writeInt(body.length);
        out.write(body);
        out.flush();
        long checksum = in.readLong();
        int replyLength = in.readInt();
        byte[] reply = new byte[replyLength];
        in.readFully(reply);
        String[] status = new String(reply, StandardCharsets.UTF_8).split("[,:{}\"]+");
        sink = cached != null && checksum == 0 ? cached : status.length > 3 ? status : payload;

        if ((n & 127) == 0) {
            logLines.offer(user + " " + checksum + " " + body.length);
        }
        if ((n & 1023) == 0) {
            try {
                Integer.parseInt(user); // a client sent a name where an id belongs
            } catch (NumberFormatException e) {
                parseFailures.incrementAndGet();
            }
        }
        if ((n & 8191) == 0) {
            try {
                throw new BreakerTripped(user);
            } catch (BreakerTripped e) {
                breakerTrips.incrementAndGet();
            }
        }
    }

    private static String serialize(Map<String, Object> fields) {
        List<String> keys = new ArrayList<>(fields.keySet());
        Collections.sort(keys);
        StringBuilder json = new StringBuilder(512).append('{');
        for (String key : keys) {
            if (json.length() > 1) {
                json.append(',');
            }
            json.append('"').append(key).append("\":");
            Object value = fields.get(key);
            if (value instanceof String s) {
                json.append('"').append(s).append('"');
            } else {
                json.append(value);
            }
        }
        return json.append('}').toString();
    }

    /** A circuit breaker's signal: an Error, so JFR's default {@code jdk.JavaErrorThrow} records it. */
    private static final class BreakerTripped extends Error {
        BreakerTripped(String user) {
            super("breaker tripped for " + user);
        }
    }

    // ---- the backend: a thread per connection ----

    private void accept(ServerSocket server) {
        try {
            while (true) {
                Socket connection = server.accept();
                connection.setTcpNoDelay(true);
                daemon("backend-" + connection.getPort(), () -> serve(connection));
            }
        } catch (IOException e) {
            if (running) {
                throw new IllegalStateException("backend acceptor failed", e);
            }
        }
    }

    private void serve(Socket connection) {
        try (connection) {
            DataInputStream in = new DataInputStream(new BufferedInputStream(connection.getInputStream(), 8192));
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(connection.getOutputStream(), 8192));
            CRC32 crc = new CRC32();
            while (true) {
                boolean slow = in.readBoolean();
                byte[] body = new byte[in.readInt()];
                in.readFully(body);
                if (slow) {
                    Thread.sleep(SLOW_BACKEND_MILLIS); // a slow downstream call
                }
                crc.reset();
                crc.update(body);
                byte[] reply = ("{\"status\":\"ok\",\"length\":" + body.length + "}").getBytes(StandardCharsets.UTF_8);
                out.writeLong(crc.getValue());
                out.writeInt(reply.length);
                out.write(reply);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // the worker went away: the workload is over
        }
    }

    // ---- background threads ----

    private void writeLog() {
        List<String> batch = new ArrayList<>();
        try {
            Writer log = Files.newBufferedWriter(logFile, StandardCharsets.UTF_8);
            long written = 0;
            while (true) {
                batch.add(logLines.take());
                logLines.drainTo(batch);
                for (String line : batch) {
                    log.write(line);
                    log.write('\n');
                    written += line.length() + 1;
                }
                log.flush();
                batch.clear();
                if (written > LOG_ROTATE_BYTES) {
                    log.close();
                    log = Files.newBufferedWriter(logFile, StandardCharsets.UTF_8, StandardOpenOption.TRUNCATE_EXISTING);
                    written = 0;
                }
            }
        } catch (IOException | InterruptedException e) {
            if (running) {
                throw new IllegalStateException("log writer failed", e);
            }
        }
    }

    /** Holds the cache's monitor for {@value #COMPACTOR_HOLD_MILLIS} ms every {@value #COMPACTOR_PERIOD_MILLIS} ms. */
    private void compact() {
        try {
            while (true) {
                Thread.sleep(COMPACTOR_PERIOD_MILLIS);
                synchronized (cache) {
                    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(COMPACTOR_HOLD_MILLIS);
                    do {
                        List<Map.Entry<String, byte[]>> entries = new ArrayList<>(cache.entrySet());
                        entries.sort(Map.Entry.comparingByKey());
                        long bytes = 0;
                        for (Map.Entry<String, byte[]> e : entries) {
                            bytes += e.getValue().length;
                        }
                        sink = bytes;
                    } while (System.nanoTime() < until);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void stats() {
        sink = String.format("ops=%d queue=%d parse=%d", ops.sum(), logLines.size(), parseFailures.get());
    }
}
