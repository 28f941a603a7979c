package org.gozie.examples.oozie;

import java.io.FileOutputStream;
import java.io.OutputStream;
import java.util.Properties;

/**
 * The main class of the java-main example: prints its arguments and, when
 * the action captures output, hands them back to the workflow as
 * args.count, arg.0, arg.1, ... and greeting (the arguments joined by a
 * space).
 */
public class DemoJavaMain {
    public static void main(String[] args) throws Exception {
        StringBuilder joined = new StringBuilder();
        Properties out = new Properties();
        out.setProperty("args.count", Integer.toString(args.length));
        for (int i = 0; i < args.length; i++) {
            System.out.println("arg " + i + ": " + args[i]);
            out.setProperty("arg." + i, args[i]);
            if (i > 0) {
                joined.append(' ');
            }
            joined.append(args[i]);
        }
        out.setProperty("greeting", joined.toString());
        System.out.println(joined);
        String file = System.getProperty("oozie.action.output.properties");
        if (file != null) {
            try (OutputStream o = new FileOutputStream(file)) {
                out.store(o, "DemoJavaMain");
            }
        }
    }
}
