package org.gozie.examples;

import java.io.BufferedReader;
import java.io.File;
import java.io.FileOutputStream;
import java.io.FileReader;
import java.io.OutputStream;
import java.util.Properties;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The main class of the java-main example: counts the lines and words of
 * the file named by its first argument and hands the counts back to the
 * workflow through oozie.action.output.properties (capture-output).
 *
 * It reads what an Oozie java action gets: its arguments, a system
 * property from java-opts, and the action configuration from the file
 * named by the system property oozie.action.conf.xml.
 */
public class LineStats {
    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: LineStats FILE");
            System.exit(2);
        }
        long lines = 0, words = 0;
        try (BufferedReader r = new BufferedReader(new FileReader(args[0]))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                lines++;
                String t = line.trim();
                if (!t.isEmpty()) {
                    words += t.split("\\s+").length;
                }
            }
        }
        Properties out = new Properties();
        out.setProperty("lines", Long.toString(lines));
        out.setProperty("words", Long.toString(words));
        out.setProperty("label", confValue("stats.label"));
        out.setProperty("greeting", System.getProperty("stats.greeting", ""));
        System.out.println("LineStats: " + out);
        try (OutputStream o = new FileOutputStream(new File(System.getProperty("oozie.action.output.properties")))) {
            out.store(o, "LineStats");
        }
    }

    /** A property of the action configuration ("" when not set). */
    static String confValue(String name) throws Exception {
        NodeList props = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new File(System.getProperty("oozie.action.conf.xml")))
                .getElementsByTagName("property");
        String value = "";
        for (int i = 0; i < props.getLength(); i++) {
            Element p = (Element) props.item(i);
            if (name.equals(p.getElementsByTagName("name").item(0).getTextContent())) {
                value = p.getElementsByTagName("value").item(0).getTextContent();
            }
        }
        return value;
    }
}
