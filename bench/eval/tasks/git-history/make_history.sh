set -e
git init -q
c() { git add -A && git -c user.name=eval -c user.email=eval@example.com commit -qm "$1"; }
mkdir -p docs src
echo "# Export" > README.md; c "Initial commit"
echo "def export(): pass" > src/export.py; c "Add the export module"
echo "Limits: 10 requests per minute." > docs/limits.md; c "Document the rate limits of the export API"
echo "def export(fmt='csv'): pass" > src/export.py; c "Export takes a format"
echo "Limits: 20 requests per minute." > docs/limits.md; c "Raise the export limit to 20 per minute"
