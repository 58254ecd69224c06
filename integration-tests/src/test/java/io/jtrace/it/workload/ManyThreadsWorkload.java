package io.jtrace.it.workload;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Threads started while a session runs, as a big service has them: half with short unique names, half
 * with pool names that HotSpot's 15-byte native names cannot tell apart ("http-nio-8080-exec-1" and
 * "-12" both become "http-nio-8080-e"). Each thread writes its own OS tid; all wait a few seconds (so a
 * sampler can place them), then end. Argument: thread count. Prints {@code TID_<name>=<tid>} lines.
 */
public final class ManyThreadsWorkload {
    private ManyThreadsWorkload() {}

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        CountDownLatch ready = new CountDownLatch(n);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        StringBuilder report = new StringBuilder();
        for (int i = 0; i < n; i++) {
            String name = (i % 2 == 0 ? "w-" : "http-nio-8080-exec-") + i;
            Thread t = new Thread(() -> {
                String line = "TID_" + name + "=" + tid();
                synchronized (report) {
                    report.append(line).append('\n');
                }
                ready.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, name);
            t.start();
            threads.add(t);
        }
        ready.await();
        Thread.sleep(4000);
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        System.out.print(report);
    }

    private static long tid() {
        try {
            String link = Files.readSymbolicLink(Path.of("/proc/thread-self")).toString();
            return Long.parseLong(link.substring(link.lastIndexOf('/') + 1));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
