-- this is the schema definition used for the main relational provenance
-- implementation (in both sqlite3 and postgres)

drop view  script_run;
drop view  function_call;
drop view  application_execution;
drop view  runtime_info;
drop view  dataset;
drop view  dataset_io;
drop view  provenance_graph_edge;
drop table annot_script_run_num cascade;
drop table annot_script_run_text cascade;
drop table annot_function_call_num cascade;
drop table annot_function_call_text cascade;
drop table annot_app_exec_num cascade;
drop table annot_app_exec_text cascade;
drop table annot_dataset_num cascade;
drop table annot_dataset_text cascade;
drop table rt_info cascade;
drop table app_exec cascade;
drop table app_fun_call cascade;
drop table dataset_in cascade;
drop table dataset_out cascade;
drop table fun_call cascade;
drop table run cascade;
drop table tc_file cascade;
drop table sites_file cascade;
drop table script cascade;
drop table mapped cascade;
drop table primitive cascade;
drop table dataset_containment cascade;
drop table ds cascade;
drop table stage_in cascade;
drop table stage_out cascade;
drop view script_and_fun_call;
drop view script_to_app_fun_call;
drop view script_to_app_exec;
drop view script_to_app_exec_with_runtime_stats;
drop view dataset_primitive_and_mapped; 
drop view dataset_all;
drop view dataset_all_with_annotations;
drop view dataset_all_with_annotations_and_parameter_names;
drop view function_call_dataflow;
drop view function_call_dataflow_with_input_details;
drop view function_call_dataflow_with_dataset_details;
drop view provenance_all;
drop view provenance_summary;
drop view app_exec_stage_in;
drop view app_exec_stage_out;
drop view app_exec_staging;
drop view app_exec_staging_all;

-- application_catalog stores tc.file
create table tc_file (
       hash_value		 varchar(256) primary key,
       content			 text
);

-- application_catalog stores tc.file
create table sites_file (
	hash_value      varchar(256) primary key,
	content         text
);

-- script stores Swift script source codes
create table script (
	hash_value      varchar(256) primary key,
	content         text
);

-- run stores information about each script run log that has
-- been seen by the importer: the log filename, swift version and import
-- status.
-- Might be interesting to store xml translation of the Swift script
-- here for prospective provenance and versioning.
create table run (
     id                 varchar(256) primary key,
     log_filename       varchar(2048),
     swift_version      varchar(16),
     cog_version        varchar(16),
     final_state        varchar(32),
     start_time         numeric,
     duration           numeric,
     script_filename    varchar(2048),
     script_hash        varchar(256) references script (hash_value),
     tc_file_hash   	varchar(256) references tc_file (hash_value),
     sites_file_hash    varchar(256) references sites_file (hash_value)
);

create view script_run as
  select id, log_filename, swift_version, cog_version, final_state, 
         to_timestamp(start_time) as start_time, duration, script_filename,
	 script_hash, tc_file_hash, sites_file_hash
  from   run;

	
create view script_run_summary as 
       select id,swift_version,cog_version,final_state,
       	      start_time,duration,script_filename 
       from script_run;

-- process gives information about each process (in the OPM sense)
-- it is augmented by information in other tables
-- specifies the type of process. for any type, it
-- must be the case that the specific type table
-- has an entry for this process.
-- process types: internal, rootthread, execute, function, compound, scope, operator
create table fun_call (
     id      	    varchar(256) primary key, 
     run_id  	    varchar(256) references run (id) on delete cascade,  
     type    	    varchar(16),
     name    	    varchar(256) -- in the case of an execute this refers to the transformation name in tc.data
);

-- this gives information about each execute.
-- each execute is identified by a unique URI. other information from
-- swift logs is also stored here. an execute is an OPM process.
create table app_fun_call (
     id             varchar(256) primary key references fun_call (id),  
     name      	    varchar(256), -- name of the app procedure that invokes the transformation
     start_time     numeric,
     duration       numeric,
     final_state    varchar(32),
     scratch        varchar(2048)
);

create view function_call as 
    select fun_call.id, fun_call.name, fun_call.type, app_fun_call.name as app_catalog_name, fun_call.run_id as script_run_id,  
           to_timestamp(app_fun_call.start_time) as start_time, app_fun_call.duration, app_fun_call.final_state
    from
      fun_call
    left outer join
      app_fun_call 
    on fun_call.id=app_fun_call.id;

-- this gives information about each application execution attempt, including
-- aggregate resource consumption. the app_exec_id is tied to per-execution-attempt
-- information such as wrapper logs
create table app_exec (
     id                varchar(256) primary key,
     app_fun_call_id   varchar(256) references app_fun_call (id), 
     start_time        numeric,
     duration          numeric,
     final_state       varchar(32),
     site              varchar(256),
     real_secs	       numeric,
     kernel_secs       numeric,
     user_secs	       numeric,
     percent_cpu       numeric,
     max_rss	       numeric,
     avg_rss	       numeric,
     avg_tot_vm	       numeric,
     avg_priv_data     numeric,
     avg_priv_stack    numeric,
     avg_shared_text   numeric,
     page_size	       numeric,
     major_pgfaults    numeric,
     minor_pgfaults    numeric,
     swaps	       numeric,
     invol_context_switches	numeric,
     vol_waits			numeric,
     fs_reads			numeric,
     fs_writes			numeric,
     sock_recv			numeric,
     sock_send			numeric,
     signals			numeric,
     exit_status		numeric
);

create table stage_in (
     app_exec_id	varchar(256) references app_exec (id),
     filename		varchar(1024),
     primary key	(app_exec_id, filename)
);

create table stage_out (
     app_exec_id	varchar(256) references app_exec (id),
     filename		varchar(1024),
     primary key	(app_exec_id, filename)
);

create view application_execution as
  select id, app_fun_call_id as function_call_id, to_timestamp(start_time) as start_time, duration, final_state, site
  from   app_exec;

create view application_runtime_info as
  select id, real_secs as real, kernel_secs as kernel, user_secs as user, percent_cpu as cpu, max_rss as maxrss, 
         avg_rss as avgrss, avg_tot_vm as avgtotvm, avg_priv_data as avgprdata, avg_priv_stack as avgprvstck, 
         avg_shared_text as avgshtxt, page_size, major_pgfaults as majpf, minor_pgfaults as minpf, swaps, 
         invol_context_switches as invcs, vol_waits as volwait, fs_reads as fsread, fs_writes as fswrite, 
         sock_recv as sockrcv, sock_send as socksnd, signals, exit_status as exit_st from app_exec;

-- app execution runtime info extracted from the /proc filesystem (assumes the app executed
-- in a Linux host) 
create table rt_info ( 
     app_exec_id        varchar(256) references app_exec (id), 
     timestamp		numeric,
     cpu_usage          numeric,
     max_phys_mem	numeric,
     max_virt_mem	numeric,
     io_read		numeric,
     io_write		numeric,
     primary key (app_exec_id, timestamp)
);

create view runtime_info as
  select app_exec_id, 
	 to_timestamp(timestamp) as timestamp, 
	 cpu_usage, 
	 max_phys_mem, 
	 max_virt_mem, 
	 io_read, 
	 io_write
  from rt_info;

-- ds stores all dataset identifiers.
create table ds (
      id	 varchar(256) primary key
);

-- file stores the filename mapped to each dataset. 
create table mapped ( 
      id	 varchar(256) primary key references ds (id) on delete cascade,
      filename   varchar(2048)
);

-- dataset_values stores the value for each dataset which is known to have
-- a value (which is all assigned primitive types). No attempt is made here
-- to expose that value as an SQL type other than a string, and so (for
-- example) SQL numerical operations should not be expected to work, even
-- though the user knows that a particular dataset stores a numeric value.
create table primitive ( 
       id    varchar(256) primary key references ds (id) on delete cascade,
       value varchar(2048)
);

-- dataset_containment stores the containment hierarchy between
-- container datasets (arrays and structs) and their contents.
-- out_id contains in_id
-- TODO this should perhaps be replaced with a more OPM-like model of
-- constructors and accessors, rather than, or in addition to,
-- a containment hierarchy. The relationship (such as array index or
-- structure member name) should also be stored in this table.
create table dataset_containment ( 
       out_id varchar(256) references ds (id) on delete cascade,
       in_id  varchar(256) references ds (id) on delete cascade,
       primary key (out_id,in_id)
);

-- dataset_usage records usage relationships between processes and datasets;
-- in SwiftScript terms, the input and output parameters for each
-- application procedure invocation; in OPM terms, the artificts which are
-- input to and output from each process that is a Swift execution
create table dataset_in (
       function_call_id	varchar(256) references fun_call (id), 
       dataset_id   	varchar(256) references ds (id) on delete cascade,
       parameter   	varchar(256), -- the name of the parameter in this execute that
                             	  -- this dataset was bound to. sometimes this must
                              	  -- be contrived (for example, in positional varargs)
       primary key (function_call_id, dataset_id, parameter)
 );

create table dataset_out (
       function_call_id	varchar(256) references fun_call (id), 
       dataset_id   	varchar(256) references ds (id) on delete cascade,
       parameter   	varchar(256), -- the name of the parameter in this execute that
                              	  -- this dataset was bound to. sometimes this must
                              	  -- be contrived (for example, in positional varargs)
       primary key (function_call_id, dataset_id, parameter)
);

create view dataset_io as
 select dataset_in.function_call_id, dataset_in.dataset_id, dataset_in.parameter, 'I' as type
 from   dataset_in
union all 
 select dataset_out.function_call_id, dataset_out.dataset_id, dataset_out.parameter, 'O' as type
 from   dataset_out;

create table annot_script_run_num ( 
       script_run_id    varchar(256) references run (id) on delete cascade, 
       name      varchar(256),
       value     numeric,
       primary key (script_run_id, name)
);

create table annot_script_run_text ( script_run_id    varchar(256) references run (id) on delete cascade, 
     name      varchar(256),
     value text,
     primary key (script_run_id, name)
);

create table annot_function_call_num ( 
       function_call_id	varchar(256) references fun_call (id) on delete cascade, 
       name       	varchar(256),
       value      	numeric,
       primary key (function_call_id, name)
);

create table annot_function_call_text ( 
       function_call_id	varchar(256) references fun_call (id) on delete cascade, 
       name       	varchar(256),
       value      	text,
       primary key (function_call_id, name)
);

create table annot_app_exec_num ( 
       app_exec_id            varchar(256) references app_exec (id) on delete cascade, 
       name      		    varchar(256),
       value     		    numeric,
       primary key (app_exec_id, name)
);

create table annot_app_exec_text ( 
       app_exec_id            varchar(256) references app_exec (id) on delete cascade, 
       name      		    varchar(256),
       value     		    text,
       primary key (app_exec_id, name)
);

create table annot_dataset_num ( 
       dataset_id varchar(256) references ds (id) on delete cascade, 
       name  varchar(256),
       value numeric,
       primary key (dataset_id, name)
);

create table annot_dataset_text( 
       dataset_id varchar(256) references ds (id) on delete cascade, 
       name  varchar(256),
       value text,
       primary key (dataset_id, name)
);
