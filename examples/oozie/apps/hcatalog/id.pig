-- The script of the hcatalog example: copy the columns foo, bar and car
-- of the input partitions the coordinator selected into the output
-- partition. The parameters come from the workflow's <param> elements.
rows = load '$DB.$TABLE' using org.apache.hive.hcatalog.pig.HCatLoader();
selected = filter rows by $FILTER;
cols = foreach selected generate foo, bar, car;
store cols into '$OUTPUT_DB.$OUTPUT_TABLE' using org.apache.hive.hcatalog.pig.HCatStorer('$OUTPUT_PARTITION');
