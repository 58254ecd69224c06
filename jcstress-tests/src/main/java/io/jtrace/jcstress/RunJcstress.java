package io.jtrace.jcstress;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import org.openjdk.jcstress.JCStress;
import org.openjdk.jcstress.Options;
import org.openjdk.jcstress.infra.Status;
import org.openjdk.jcstress.infra.collectors.DiskReadCollector;
import org.openjdk.jcstress.infra.collectors.InProcessCollector;
import org.openjdk.jcstress.infra.collectors.TestResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the jcstress tests (jcstress's options) and exits with 1 unless every selected test ran and
 * passed in every configuration, so the build fails. jcstress's own main fails only on forbidden
 * outcomes and errors: a test whose state cannot even be built ("sanity check failed") is skipped, and
 * would pass silently, as would one that collected no sample.
 */
public final class RunJcstress {
    private static final Logger LOG = LoggerFactory.getLogger(RunJcstress.class);

    private RunJcstress() {}

    public static void main(String[] args) throws Exception {
        Options options = new Options(args);
        if (!options.parse()) {
            System.exit(2);
        }
        JCStress jcstress = new JCStress(options);
        SortedSet<String> selected = jcstress.getTests();
        try {
            jcstress.run();
        } catch (AssertionError failures) {
            // jcstress has listed them; they are found again below with everything else.
        }
        InProcessCollector results = new InProcessCollector();
        DiskReadCollector reader = new DiskReadCollector(options.getResultFile(), results);
        try {
            reader.dump();
        } finally {
            reader.close();
        }
        List<String> problems = problems(selected, results);
        if (selected.isEmpty()) {
            problems.add("no jcstress test was selected");
        }
        if (problems.isEmpty()) {
            LOG.info("jcstress: all {} tests passed", selected.size());
            System.exit(0);
        }
        LOG.error("jcstress: {} problem(s):\n  {}", problems.size(), String.join("\n  ", problems));
        System.exit(1);
    }

    private static List<String> problems(SortedSet<String> selected, InProcessCollector results) {
        List<String> problems = new ArrayList<>();
        SortedSet<String> ran = new TreeSet<>();
        for (TestResult result : results.getTestResults()) {
            String name = result.getName();
            ran.add(name);
            if (result.status() != Status.NORMAL) {
                problems.add(name + ": " + result.status() + " " + result.getMessages());
            } else if (!result.grading().isPassed) {
                problems.add(name + ": " + result.grading().failureMessages);
            } else if (result.getTotalCount() == 0) {
                problems.add(name + ": no sample collected");
            }
        }
        for (String test : selected) {
            if (!ran.contains(test)) {
                problems.add(test + ": did not run");
            }
        }
        return problems;
    }
}
