-------------------------------------------------------------------------------
-- tuner_user keeps only the table privileges tuner's own functions use.
--
-- tuner's functions run as their caller, so tuner_user holds the table
-- privileges they need, and row-level security narrows them to the
-- studies a role may write.  It held more than that: UPDATE and DELETE on
-- tables that no function ever changes, so a write grantee could delete
-- another's trials, rewrite the record of what a suggestion saw, or
-- remove the event log.  Those go: what remains is what the API itself
-- writes, each guarded by its trigger.  Rows still go with their study,
-- trial or parameter: foreign-key cascades run as the tables' owner.
-------------------------------------------------------------------------------

-- Written once, never changed or removed by a function: the record of
-- what happened.
REVOKE UPDATE, DELETE ON tuner.observation, tuner.model, tuner.suggestion,
	tuner.study_event, tuner.bound_change, tuner.parameter_source
	FROM tuner_user;
-- Changed, never removed, by a function: trials, jobs, parameters,
-- metrics, catalog imports.
REVOKE DELETE ON tuner.trial, tuner.job, tuner.parameter, tuner.metric,
	tuner.catalog_import, tuner.parameter_constraint
	FROM tuner_user;
-- Made and forgotten, never changed: a study's views; a runner is
-- registered and dropped, never changed in place.
REVOKE UPDATE ON tuner.study_view, tuner.runner FROM tuner_user;
